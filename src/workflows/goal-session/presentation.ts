/** How a goal is shown in Temporal's Web UI: its first line as the summary, the whole goal verbatim in the details. */

const SUMMARY_CHARS = 200;
const SEARCHABLE_GOAL_CHARS = 1000;

/**
 * The goal's first line. The Web UI renders a summary as Markdown too, where `--json` became "–json" and `*x*`
 * italics: the characters Markdown acts on are backslash-escaped (CommonMark shows them literally).
 */
export function goalSummary(goal: string): string {
  const firstLine = goal.trim().split('\n')[0] ?? '';
  const clipped = firstLine.length > SUMMARY_CHARS ? `${firstLine.slice(0, SUMMARY_CHARS - 1)}…` : firstLine;
  return clipped.replace(/[\\`*_[\]<>#|~]/g, '\\$&').replace(/-(?=-)/g, '-\\');
}

/**
 * The Web UI renders details as Markdown, which turned `--json` into "–json": the goal goes into a fenced block
 * whose fence is longer than any run of backticks inside it, so nothing in the goal can close it.
 */
export function goalDetails(goal: string, sessionDir: string): string {
  const longestRun = Math.max(2, ...(goal.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  return `Goal session in \`${sessionDir}\`\n\n${fence}text\n${goal.trim()}\n${fence}`;
}

export function searchableGoal(goal: string): string {
  const text = goal.trim();
  return text.length > SEARCHABLE_GOAL_CHARS ? text.slice(0, SEARCHABLE_GOAL_CHARS) : text;
}
