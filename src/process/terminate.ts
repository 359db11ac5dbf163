import { pollUntil } from './poll-until';

/** One process, or a whole process group (signalled as `-pgid`). */
export type TerminateTarget = { pid: number } | { group: number };

export type SignalResult = 'sent' | 'gone' | 'denied';

export interface TerminateOptions {
  /** How long the polite signals get before SIGKILL. */
  graceMs: number;
  /** How long to wait for the target to vanish after SIGKILL (default 2 s). */
  killWaitMs?: number;
  /** How often to look (default 25 ms). */
  intervalMs?: number;
  /** The polite phase (default SIGTERM); a tmux pane's harness also gets SIGHUP, as a closing terminal would. */
  politeSignals?: readonly NodeJS.Signals[];
  /**
   * Whether the target still runs. Default: kill(target, 0). Callers that know better pass their own: a
   * process group of zombies, or a tmux pane marked dead, has stopped even though kill(2) still reaches it.
   */
  isRunning?: () => boolean | Promise<boolean>;
  /** Sends a signal (default: process.kill); injected where a test must see EPERM. */
  send?: (target: number, signal: NodeJS.Signals) => SignalResult;
}

export interface TerminateResult {
  /** The strongest signal that was delivered: none, SIGTERM (polite phase) or SIGKILL. */
  action: 'none' | 'sigterm' | 'sigkill';
  /** Nothing of the target runs any more. */
  settled: boolean;
  /** Signals the kernel refused (EPERM). */
  denied: NodeJS.Signals[];
}

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

export function sendSignal(target: number, signal: NodeJS.Signals | 0): SignalResult {
  try {
    process.kill(target, signal);
    return 'sent';
  } catch (err) {
    if (errnoCode(err) === 'ESRCH') return 'gone';
    if (errnoCode(err) === 'EPERM') return 'denied';
    throw err;
  }
}

/** kill(target, 0): a process we may not signal (EPERM) still runs. */
export function isRunning(target: TerminateTarget): boolean {
  return sendSignal(targetNumber(target), 0) !== 'gone';
}

function targetNumber(target: TerminateTarget): number {
  if ('group' in target) {
    if (!Number.isInteger(target.group) || target.group <= 1)
      throw new Error(`refusing to signal process group ${target.group}`);
    return -target.group;
  }
  if (!Number.isInteger(target.pid) || target.pid <= 0)
    throw new Error(`refusing to signal pid ${target.pid}`);
  return target.pid;
}

/**
 * The polite signals, a grace period, then SIGKILL: the one way the-loop stops a process or a process group.
 * Resolves once the target is gone or the waits are over (`settled` says which).
 */
export async function terminate(
  target: TerminateTarget,
  options: TerminateOptions,
): Promise<TerminateResult> {
  const number = targetNumber(target);
  const running = options.isRunning ?? (() => isRunning(target));
  const send = options.send ?? sendSignal;
  const intervalMs = options.intervalMs ?? 25;
  const gone = async () => !(await running());
  const denied: NodeJS.Signals[] = [];
  if (await gone()) return { action: 'none', settled: true, denied };
  let action: TerminateResult['action'] = 'none';
  for (const signal of options.politeSignals ?? ['SIGTERM']) {
    const result = send(number, signal);
    if (result === 'sent') action = 'sigterm';
    if (result === 'denied') denied.push(signal);
  }
  const graceMs = action === 'sigterm' ? options.graceMs : 0;
  if (await pollUntil(gone, { timeoutMs: graceMs, intervalMs })) return { action, settled: true, denied };
  const kill = send(number, 'SIGKILL');
  if (kill === 'sent') action = 'sigkill';
  if (kill === 'denied') denied.push('SIGKILL');
  const settled = (await pollUntil(gone, { timeoutMs: options.killWaitMs ?? 2000, intervalMs })) === true;
  return { action, settled, denied };
}
