import { readFileSync } from 'node:fs';
import { readJsonIfExists } from '../../../session/json-file';
import { sessionPaths } from '../../../session/paths';
// The state file's schema alone: the schemas index loads all fourteen of them.
import { sessionStateFileSchema, type SessionStateFile } from '../../../session/schemas/state';

/** state.json, the projection the worker keeps; null before the first one is written. */
export function readState(sessionDir: string): SessionStateFile | null {
  return readJsonIfExists(sessionPaths(sessionDir).state, sessionStateFileSchema);
}

export function readGoal(sessionDir: string): string {
  try {
    return readFileSync(sessionPaths(sessionDir).goal, 'utf8');
  } catch {
    return '';
  }
}
