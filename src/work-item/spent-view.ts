import { formatUsd } from '../pricing/money';
import { tokensIn } from '../session/usage-math';
import type { Spent } from './schemas';

/**
 * What a work item has spent, in a table cell: `$0.12`; `$0.12+unpriced` when a model with no price ran too (its
 * tokens are known, its cost is not); `-` before a turn has ended.
 */
export function spentCell(spent: Spent | undefined): string {
  return spent ? costCell(spent.usage.cost_usd, spent.unpriced_models.length > 0) : '-';
}

/** `$0.12`, `$0.12+unpriced`, or `unpriced` when only models with no price ran. */
export function costCell(costUsd: number, unpriced: boolean): string {
  if (!unpriced) return formatUsd(costUsd);
  return costUsd > 0 ? `${formatUsd(costUsd)}+unpriced` : 'unpriced';
}

/** The whole line: money, turns and tokens (input counts cache reads and writes), and the models with no price. */
export function spentLine(spent: Spent | undefined): string {
  if (!spent) return 'none yet';
  const u = spent.usage;
  const unpriced =
    spent.unpriced_models.length > 0 ? ` · no price for ${spent.unpriced_models.join(', ')} (pricing:)` : '';
  return `${spentCell(spent)} · ${u.num_turns} turn${u.num_turns === 1 ? '' : 's'} · ${tokensIn(u).toLocaleString('en-US')} tokens in / ${u.output_tokens.toLocaleString('en-US')} out${unpriced}`;
}
