import type { TheLoopConfig } from '../config/schema';
import type { ChannelThread, ChannelWorkItem, WorkItemChannel } from './channel';

/**
 * The worker's one channel, shared by the host activities and the hosted turns. Opening or finding a thread is
 * awaited (the spawn records its link); posts are queued per thread and never awaited by the work item, so a slow
 * or failing Slack (5xx, 429) delays no turn, and the thread still reads in the order things happened.
 */
export class ThreadMirror {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly channel: WorkItemChannel) {}

  openOrFindThread(
    workItem: ChannelWorkItem,
    existingPermalink: string | null,
  ): Promise<ChannelThread | null> {
    return this.channel.openOrFindThread(workItem, { existingPermalink });
  }

  /** Queued behind the thread's earlier posts; a failure was already warned by the channel. */
  post(thread: ChannelThread, text: string): void {
    const previous = this.tails.get(thread.threadId) ?? Promise.resolve();
    const next = previous
      .then(() => this.channel.post(thread, text))
      .then(
        () => undefined,
        () => undefined,
      );
    this.tails.set(thread.threadId, next);
    void next.then(() => {
      if (this.tails.get(thread.threadId) === next) this.tails.delete(thread.threadId);
    });
  }

  /** Resolves once every queued post has been tried (a worker shutting down lets them finish). */
  async settled(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}

/**
 * The mirror of the configured channel, or null when no channel is configured (or its token is missing: warned).
 * The Slack client is loaded only where Slack is configured.
 */
export async function threadMirrorFromConfig(
  config: TheLoopConfig,
  warn: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ThreadMirror | null> {
  if (!config.slack) return null;
  const { channelFromConfig } = await import('./from-config.js');
  const channel = channelFromConfig(config, warn, env);
  return channel ? new ThreadMirror(channel) : null;
}
