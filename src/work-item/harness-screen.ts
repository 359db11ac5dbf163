import type { WorkItemHarness } from './schemas';

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

/**
 * What the TUI shows while it works on a prompt it took: Claude Code's footer offers to interrupt. It shows as soon
 * as a prompt is submitted, before the UserPromptSubmit hook runs: a slash command's `!` lines (the plugin's
 * `the-loop item show`) run first, for as long as they take.
 */
const WORKING_MARKER: Record<WorkItemHarness, RegExp | null> = {
  claude: /esc to interrupt/,
  cursor: null,
};

/** The footer is at the bottom: text the agent wrote higher up never counts as a marker. */
const FOOTER_LINES = 4;

/** The last lines of a screen that show something, as an error quotes them. */
export function lastLines(screen: string, count = 12): string[] {
  return screen
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .slice(-count);
}

/** The harness has a ready marker of its own (else readiness is a pane that stayed up). */
export const hasReadyMarker = (harness: WorkItemHarness): boolean => READY_MARKER[harness] !== null;

export function showsReady(harness: WorkItemHarness, screen: string): boolean {
  return READY_MARKER[harness]?.test(screen) ?? false;
}

/** The TUI works on a prompt it took (false for harnesses that show no such marker). */
export function showsWorking(harness: WorkItemHarness, screen: string): boolean {
  return WORKING_MARKER[harness]?.test(lastLines(screen, FOOTER_LINES).join('\n')) ?? false;
}
