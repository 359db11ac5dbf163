import { formatUsd } from '../pricing/money';
import { tokensIn } from '../session/usage-math';
import type { HostedTurnUsage } from '../work-item/turn-usage';

const SUMMARY_CHARS = 200;

/** The first non-empty line of a reply, cut to a chat line's length. */
export function summaryOf(reply: string | null): string {
  const line =
    (reply ?? '')
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  if (line === '') return '(no text reply)';
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
}

/** `$0.02, 1,234 tokens in, 56 out`: input counts cache reads and writes; a model with no price says so. */
export function costText({ usage, unpriced }: HostedTurnUsage): string {
  const money =
    unpriced.length === 0
      ? formatUsd(usage.cost_usd)
      : `${usage.cost_usd > 0 ? `${formatUsd(usage.cost_usd)} + ` : ''}unpriced (no price for ${unpriced.join(', ')})`;
  return `${money}, ${tokensIn(usage).toLocaleString('en-US')} tokens in, ${usage.output_tokens.toLocaleString('en-US')} out`;
}

/** What a turn says in the work item's thread: its one-line summary and what it cost, or why it failed. */
export function turnLine(
  iteration: number,
  outcome: { reply: string | null } | { error: string } | { interrupted: string },
  usage: HostedTurnUsage | null,
): string {
  const cost = usage ? ` — cost: ${costText(usage)}` : '';
  if ('error' in outcome) return `turn ${iteration} failed: ${summaryOf(outcome.error)}${cost}`;
  if ('interrupted' in outcome) return `turn ${iteration} interrupted in the terminal${cost}`;
  return `turn ${iteration}: ${summaryOf(outcome.reply)}${cost}`;
}
