import type { TheLoopConfig } from '../../config/schema';
import type { ThreadMirror } from '../../channel/mirror';
import type { GitHubClient } from '../../github/api';
import { declaredEnvironment, environmentWithout, type DeclaredEnvironment } from '../env';
import { workItemDirs, type WorkItemDirs } from '../paths';
import { formatRef, parseWorkItemRef, refSlug, type WorkItemRef } from '../ref';
import { readRecord } from '../registry';
import type { RegistryRecord } from '../schemas';
import { Tmux } from '../tmux';
import type { HostedTurns } from './pane-state';

import { HostError } from './host-error';

export { HostError };

/** What host-side work-item operations need: injected so the CLI and the activities share one implementation. */
export interface HostContext {
  config: TheLoopConfig;
  /** The file the config was read from (null: defaults); a hosted pane's own the-loop commands read it too. */
  configPath?: string | null;
  /** With the config, where this host keeps its records (workItemDirs). */
  stateDir: string;
  /** Where process environments are read from; tests point it elsewhere to prove "unverified". */
  procRoot?: string;
  github?: GitHubClient;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** Called while a long step (a clone, a fetch) runs: an activity heartbeats through it. */
  heartbeat?: () => void;
  /** Aborted when the activity is cancelled (a close ends the turn under way): its waits stop there. */
  signal?: AbortSignal;
  /** The worker's hook channel and turns: a hosted claude reports through them (absent in the CLI). */
  turns?: HostedTurns;
  /** The work item's chat thread (Slack), when one is configured: opened before a spawn, mirrored into after. */
  mirror?: ThreadMirror | null;
  /** Tests only: where a worker kills itself (ActivityDeps.faultPoint). */
  faultPoint?: string;
}

export function hostDirs(ctx: HostContext): WorkItemDirs {
  return workItemDirs(ctx.config, ctx.stateDir);
}

export function processEnv(ctx: HostContext): NodeJS.ProcessEnv {
  return ctx.env ?? process.env;
}

export function hostTmux(ctx: HostContext, declared?: DeclaredEnvironment): Tmux {
  const env = declared ?? declaredEnvironment(ctx.config, processEnv(ctx));
  return new Tmux(ctx.config.routing.tmux.socket, environmentWithout(env.keptOut, processEnv(ctx)));
}

export interface Located {
  ref: WorkItemRef;
  workItem: string;
  slug: string;
  dirs: WorkItemDirs;
}

export function locate(ctx: HostContext, workItem: string): Located {
  const ref = parseWorkItemRef(workItem);
  return { ref, workItem: formatRef(ref), slug: refSlug(ref), dirs: hostDirs(ctx) };
}

export function requireRecord(at: Located): RegistryRecord {
  const record = readRecord(at.dirs, at.slug);
  if (!record) throw new HostError(`${at.workItem}: no session record on this machine`, 'not-found');
  return record;
}
