import { pollUntil } from '../process/poll-until';
import type { WorkItemHarness } from './schemas';
import type { Tmux } from './tmux';

/**
 * What a harness's TUI shows once it takes input: Claude Code's footer under its input box (2.1.x). A first-run
 * dialog (theme, login, API-key approval, folder trust) shows no such footer. Harnesses without a known marker are
 * ready once their pane has stayed up for the settle time.
 */
const READY_MARKER: Record<WorkItemHarness, RegExp | null> = {
  // the footer reads "? for shortcuts", or names the permission mode ("accept edits on (shift+tab to cycle)")
  claude: /\? for shortcuts|\(shift\+tab to cycle\)/,
  cursor: null,
};

export interface ReadyWait {
  /** How long a harness with a ready marker may take to show it. */
  readyTimeoutMs: number;
  /** How long a pane must stay up to count as started (harnesses without a marker). */
  settleMs: number;
  onTick?: () => void;
}

export type Readiness =
  { ready: true } | { ready: false; problem: 'died' | 'not-ready'; lastLines: string[] };

const LAST_LINES = 12;

function lastLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .slice(-LAST_LINES);
}

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
  const marker = READY_MARKER[harness];
  const started = Date.now();
  let screen = '';
  const outcome = await pollUntil(
    async (): Promise<Readiness | undefined> => {
      wait.onTick?.();
      const pane = await tmux.pane(name);
      screen = sinceLastRun(await tmux.capture(name).catch(() => screen));
      if (!pane || pane.dead) return { ready: false, problem: 'died', lastLines: lastLines(screen) };
      if (marker ? marker.test(screen) : Date.now() - started >= wait.settleMs) return { ready: true };
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
