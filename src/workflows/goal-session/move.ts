// Moving a goal session to another host (`loopy move`): the new host takes the session's directory over first, so a
// session never moves to a host that cannot reach its files. Workflow code: deterministic.
import { proxyActivities, rootCause, TimeoutFailure } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { MoveRequest, MoveResult } from './messages';
import type { GoalSessionInput } from './types';
import { hostIdOf, hostQueueName } from './host-queue';

/** How long a move waits for a worker of the new host to take the directory over before it is refused. */
const ADOPT_WITHIN = '2 minutes';

/** The new host's queue once a worker there has taken the session's directory over; else why it did not. */
async function adoptOnHost(
  input: Pick<GoalSessionInput, 'sessionId' | 'sessionDir' | 'taskQueue'>,
  hostId: string,
): Promise<{ hostQueue: string } | { refused: string }> {
  const hostQueue = hostQueueName(input.taskQueue, hostId);
  const { adoptSession } = proxyActivities<Activities>({
    taskQueue: hostQueue,
    scheduleToCloseTimeout: ADOPT_WITHIN,
    retry: { initialInterval: '1s', maximumAttempts: 3 },
  });
  try {
    await adoptSession({ sessionId: input.sessionId, sessionDir: input.sessionDir, hostQueue });
    return { hostQueue };
  } catch (error) {
    const timedOut = error instanceof Error && error.cause instanceof TimeoutFailure;
    return {
      refused: timedOut
        ? `no worker of host ${hostId} took the session within ${ADOPT_WITHIN}`
        : (rootCause(error) ?? String(error)),
    };
  }
}

/** What a move needs of its session (GoalSession). */
export interface HostMoveHooks {
  input: GoalSessionInput;
  stopping(): boolean;
  emit(type: 'session_moved' | 'move_refused', data: Record<string, unknown>): void;
  /** The new host took the session over: its activities go to `input.hostQueue` from now on. */
  moved(): void;
}

/** `loopy move`, one at a time: the session runs on another host from now on. */
export class HostMoves {
  private moving = false;

  constructor(private readonly hooks: HostMoveHooks) {}

  async move({ hostId, by }: MoveRequest): Promise<MoveResult> {
    const { input } = this.hooks;
    const from = hostIdOf(input.taskQueue, input.hostQueue);
    const refused = (reason: string): MoveResult => ({ moved: false, hostId: from, reason });
    if (this.hooks.stopping()) return refused('the session is stopping');
    if (this.moving) return refused('another move of this session is under way');
    if (hostId === from) return refused(`the session already runs on host ${from}`);
    this.moving = true;
    try {
      const adopted = await adoptOnHost(input, hostId);
      if ('refused' in adopted) {
        this.hooks.emit('move_refused', { host_id: hostId, reason: adopted.refused, by });
        return refused(adopted.refused);
      }
      input.hostQueue = adopted.hostQueue; // carried by continue-as-new and given to child sessions
      this.hooks.emit('session_moved', { from_host_id: from, host_id: hostId, by });
      this.hooks.moved();
      return { moved: true, hostId, reason: null };
    } finally {
      this.moving = false;
    }
  }
}
