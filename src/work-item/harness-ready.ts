import { pollUntil } from '../process/poll-until';
import { hasReadyMarker, lastLines, showsReady } from './harness-screen';
import type { WorkItemHarness } from './schemas';
import type { Tmux } from './tmux';

export interface ReadyWait {
  /** How long a harness with a ready marker may take to show it. */
  readyTimeoutMs: number;
  /** How long a pane must stay up to count as started (harnesses without a marker). */
  settleMs: number;
  onTick?: () => void;
}

export type Readiness =
  { ready: true } | { ready: false; problem: 'died' | 'not-ready'; lastLines: string[] };

/** A respawned pane keeps its earlier run's screen above tmux's "Pane is dead" line: only what follows is new. */
function sinceLastRun(screen: string): string {
  // the run that just died ends with its own "Pane is dead" line: its output is what precedes that line
  const own = screen.replace(/\n?Pane is dead[^\n]*\s*$/, '');
  const match = [...own.matchAll(/^Pane is dead.*$/gm)].pop();
  return match?.index === undefined ? own : own.slice(match.index + match[0].length);
}

/** Watches a freshly spawned pane until its harness is ready, dies, or never gets there. */
export async function awaitHarnessReady(
  tmux: Tmux,
  name: string,
  harness: WorkItemHarness,
  wait: ReadyWait,
): Promise<Readiness> {
  const marker = hasReadyMarker(harness);
  const started = Date.now();
  let screen = '';
  const outcome = await pollUntil(
    async (): Promise<Readiness | undefined> => {
      wait.onTick?.();
      const pane = await tmux.pane(name);
      screen = sinceLastRun(await tmux.capture(name).catch(() => screen));
      if (!pane || pane.dead) return { ready: false, problem: 'died', lastLines: lastLines(screen) };
      if (marker ? showsReady(harness, screen) : Date.now() - started >= wait.settleMs)
        return { ready: true };
      return undefined;
    },
    { timeoutMs: marker ? wait.readyTimeoutMs : wait.settleMs + 5000, intervalMs: 250 },
  );
  return outcome ?? { ready: false, problem: 'not-ready', lastLines: lastLines(screen) };
}

export function describeReadiness(harness: WorkItemHarness, readiness: Readiness, seconds: number): string {
  if (readiness.ready) return 'ready';
  const what =
    readiness.problem === 'died'
      ? `the ${harness} harness exited as it started`
      : `the ${harness} harness did not become ready within ${seconds}s (a first-run dialog, such as onboarding or a login, waits for a person: run '${harness}' once in a terminal to answer it)`;
  const lines = readiness.lastLines.length > 0 ? readiness.lastLines.join('\n  ') : '(the pane was empty)';
  return `${what}; the pane's last lines:\n  ${lines}`;
}
