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

/**
 * What a permission prompt shows at the bottom of the screen while it waits: Claude Code's dialog lists its answers
 * ("1. Yes", selected or not) above a footer that offers to cancel. Gone from the screen, the prompt was answered
 * (or the turn interrupted) in the terminal.
 */
const PROMPT_MARKER: Record<WorkItemHarness, RegExp | null> = {
  claude: /^\s*(?:❯\s*)?1\. Yes\b|Esc to cancel/m,
  cursor: null,
};
/** The dialog's answers and footer: its last lines. */
const PROMPT_LINES = 12;

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

/** A permission prompt waits on the screen (false for harnesses that show no such marker). */
export function showsPrompt(harness: WorkItemHarness, screen: string): boolean {
  return PROMPT_MARKER[harness]?.test(lastLines(screen, PROMPT_LINES).join('\n')) ?? false;
}
