import { appendSpentTurns, turnKey } from '../../budget/ledger';
import { addUsage, emptyUsage } from '../../session/usage-math';
import { appendWorkItemEvent, readWorkItemEvents } from '../event-log';
import type { WorkItemDirs } from '../paths';
import { parseWorkItemRef, refSlug } from '../ref';
import { listRecords, updateRecord } from '../registry';
import type { RegistryRecord } from '../schemas';
import { finishedTurnUsages } from '../session-dir';
import { unpricedModelWarning } from '../../session/unpriced-models';

/** The last iteration of `sessionDir` that the record's `spent` counts; 0 when none of it. */
function lastCounted(record: RegistryRecord, sessionDir: string): number {
  const counted = record.spent?.last_counted;
  return counted?.session_dir === sessionDir ? counted.iteration : 0;
}

/** The iterations of `sessionDir` whose `turn.spent` the work item's event log has. */
function loggedSpentTurns(dirs: WorkItemDirs, slug: string, sessionDir: string): Set<unknown> {
  return new Set(
    readWorkItemEvents(dirs, slug)
      .filter((e) => e.type === 'turn.spent' && e.data?.['session_dir'] === sessionDir)
      .map((e) => e.data?.['iteration']),
  );
}

/**
 * Counts what a work item's hosted turns spent into its record's `spent`: every turn of its session directory whose
 * result.json holds usage and that `spent` does not count yet, each once (`last_counted`), however often this runs
 * and whatever crashed between a turn's end and its counting. Each counted turn goes into the state directory's spend
 * ledger (the fleet budget) and the work item's event log (`turn.spent`), under the record's lock and before the
 * record counts it. A model with no price is warned about at its first turn. Returns what the work item has spent
 * in all (USD).
 */
export async function countTurnsSpent(
  dirs: WorkItemDirs,
  workItem: string,
  sessionDir: string,
  warn: (line: string) => void,
): Promise<number> {
  const slug = refSlug(parseWorkItemRef(workItem));
  let newlyUnpriced: string[] = [];
  let total = 0;
  await updateRecord(dirs, slug, (record) => {
    total = record?.spent?.usage.cost_usd ?? 0;
    if (!record || record.session_dir !== sessionDir) return null;
    const turns = finishedTurnUsages(sessionDir, lastCounted(record, sessionDir));
    const last = turns.at(-1);
    if (!last) return null;
    const before = record.spent?.unpriced_models ?? [];
    newlyUnpriced = [...new Set(turns.flatMap((turn) => turn.unpricedModels))].filter(
      (m) => !before.includes(m),
    );
    const at = new Date().toISOString();
    appendSpentTurns(
      dirs.stateRoot,
      turns.map((turn) => ({
        at,
        kind: 'work-item' as const,
        session: workItem,
        turn: turnKey(sessionDir, turn.iteration),
        cost_usd: turn.usage.cost_usd,
        unpriced: turn.unpricedModels.length > 0,
      })),
    );
    // a worker killed after these appends, before the record was written, leaves them to be made again: the
    // ledger's readers take a turn once by its key, and the event log gets each turn's line once
    const logged = loggedSpentTurns(dirs, slug, sessionDir);
    for (const turn of turns) {
      if (logged.has(turn.iteration)) continue;
      appendWorkItemEvent(dirs, slug, workItem, 'turn.spent', {
        session_dir: sessionDir,
        iteration: turn.iteration,
        usage: turn.usage,
        ...(turn.unpricedModels.length > 0 ? { unpriced_models: turn.unpricedModels } : {}),
      });
    }
    const usage = turns.reduce((sum, turn) => addUsage(sum, turn.usage), record.spent?.usage ?? emptyUsage());
    total = usage.cost_usd;
    return {
      ...record,
      spent: {
        usage,
        unpriced_models: [...before, ...newlyUnpriced],
        last_counted: { session_dir: sessionDir, iteration: last.iteration },
      },
    };
  });
  for (const model of newlyUnpriced) {
    warn(unpricedModelWarning(workItem, model));
  }
  return total;
}

/**
 * At a worker's start: the turns that ended while no worker counted them (it died between a turn's result.json and
 * its counting), in every open session of this machine.
 */
export async function countMissedTurns(dirs: WorkItemDirs, warn: (line: string) => void): Promise<void> {
  for (const record of listRecords(dirs.registryDir).records) {
    // only hosted claude turns carry usage (cursor's pasted events have none to count)
    if (record.status === 'closed' || record.harness !== 'claude') continue;
    // looked at without the record's lock first: a start takes no lock for a session with nothing missed
    if (finishedTurnUsages(record.session_dir, lastCounted(record, record.session_dir)).length === 0)
      continue;
    await countTurnsSpent(dirs, record.work_item, record.session_dir, warn).catch((error: unknown) =>
      warn(`${record.work_item}: its turns' cost was not counted: ${String(error)}`),
    );
  }
}
