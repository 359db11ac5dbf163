import { addUsage, emptyUsage } from '../../session/usage-math';
import { appendWorkItemEvent } from '../event-log';
import type { WorkItemDirs } from '../paths';
import { parseWorkItemRef, refSlug } from '../ref';
import { updateRecord } from '../registry';
import type { Spent } from '../schemas';
import type { HostedTurnUsage } from '../turn-usage';

/** Whether the turn is already in `spent`: the same session's turn, or an earlier one of it. */
function counted(spent: Spent | undefined, sessionDir: string, iteration: number): boolean {
  return spent?.last_counted.session_dir === sessionDir && spent.last_counted.iteration >= iteration;
}

/**
 * A hosted turn ended with what it spent: the work item's record adds it to `spent` (once, however often the turn is
 * reported), and its event log says what the turn cost. A model with no price is warned about at its first turn.
 */
export async function recordTurnSpent(
  dirs: WorkItemDirs,
  workItem: string,
  turn: { sessionDir: string; iteration: number; usage: HostedTurnUsage },
  warn: (line: string) => void,
): Promise<void> {
  const slug = refSlug(parseWorkItemRef(workItem));
  let newlyUnpriced: string[] = [];
  await updateRecord(dirs, slug, (record) => {
    if (!record || counted(record.spent, turn.sessionDir, turn.iteration)) return null;
    const before = record.spent?.unpriced_models ?? [];
    newlyUnpriced = turn.usage.unpriced.filter((model) => !before.includes(model));
    // under the record's lock, before the record counts the turn: a reader that sees it counted finds its event
    appendWorkItemEvent(dirs, slug, workItem, 'turn.spent', {
      session_dir: turn.sessionDir,
      iteration: turn.iteration,
      usage: turn.usage.usage,
      ...(turn.usage.unpriced.length > 0 ? { unpriced_models: turn.usage.unpriced } : {}),
    });
    return {
      ...record,
      spent: {
        usage: addUsage(record.spent?.usage ?? emptyUsage(), turn.usage.usage),
        unpriced_models: [...before, ...newlyUnpriced],
        last_counted: { session_dir: turn.sessionDir, iteration: turn.iteration },
      },
    };
  });
  for (const model of newlyUnpriced) {
    warn(
      `${workItem}: the model ${model} has no price, so its turns' cost shows as unpriced: add it under pricing: in the configuration`,
    );
  }
}
