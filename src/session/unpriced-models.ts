import { historyTotals } from './history';
import { readJsonIfExists } from './json-file';
import { iterationPaths } from './paths';
import { resultFileSchema } from './schemas/result';
import type { SessionStateFile } from './schemas/state';

/**
 * The models without a price that a goal session's turns ran, as their result.json files name them, in the order
 * first met. A torn or unreadable result.json says nothing.
 */
export function unpricedModelsOf(
  sessionDir: string,
  turns: readonly { iteration: number; routine_id: string }[],
): string[] {
  const models = new Set<string>();
  for (const turn of turns) {
    try {
      const result = readJsonIfExists(
        iterationPaths(sessionDir, turn.iteration, turn.routine_id).result,
        resultFileSchema,
      );
      for (const model of result?.unpriced_models ?? []) models.add(model);
    } catch {
      // a torn or unreadable result.json: its turn says nothing here
    }
  }
  return [...models];
}

/**
 * The models without a price that the turns a state.json records ran, before turn `before` when given: those its
 * sums name for the turns that left its history, then those its remaining entries' result.json files name.
 */
export function unpricedModelsOfState(
  sessionDir: string,
  state: Pick<SessionStateFile, 'history' | 'earlier_history'>,
  before = Infinity,
): string[] {
  const totals = historyTotals(state);
  const recent = totals.recent.filter((turn) => turn.iteration < before);
  return [...new Set([...totals.unpricedEarlier, ...unpricedModelsOf(sessionDir, recent)])];
}

/** The one line said when a session's turns first run a model without a price (a goal session's or a work item's). */
export function unpricedModelWarning(session: string, model: string): string {
  return `${session}: the model ${model} has no price, so its turns' cost shows as unpriced: add it under pricing: in the configuration`;
}
