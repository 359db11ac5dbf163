import { readJsonIfExists } from '../session/json-file';
import { sessionPaths } from '../session/paths';
import { sessionStateFileSchema } from '../session/schemas/state';
import { unpricedModelsOfState, unpricedModelWarning } from '../session/unpriced-models';

/**
 * A goal session's turn that ran a model without a price: one warning for each such model its earlier turns (those
 * state.json records) did not run, so the line comes at the first turn on that model, as a work item's does. Its cost
 * shows as unpriced meanwhile (`loopy status`), never as $0.00.
 */
export function warnNewlyUnpriced(
  session: { sessionId: string; sessionDir: string },
  iteration: number,
  models: readonly string[],
  warn: (line: string) => void,
): void {
  if (models.length === 0) return;
  let earlier: string[] = [];
  try {
    const state = readJsonIfExists(sessionPaths(session.sessionDir).state, sessionStateFileSchema);
    earlier = state ? unpricedModelsOfState(session.sessionDir, state, iteration) : [];
  } catch {
    // an unreadable state.json: warn, rather than stay silent
  }
  for (const model of models) {
    if (!earlier.includes(model)) warn(unpricedModelWarning(session.sessionId, model));
  }
}
