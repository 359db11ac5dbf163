import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { readJsonIfExists } from './json-file';
import { listCacheFormat, readThroughListCache } from './list-cache';
import { sessionPaths, sessionsRoot } from './paths';
import { isSessionId } from './session-id';
import { sessionSummarySchema, type SessionSummary } from './schemas/state';

/** The goal sessions under `cwd`, oldest first (ids begin with their start time). */
export function listSessionIds(cwd: string): string[] {
  const root = sessionsRoot(cwd);
  if (!existsSync(root)) return [];
  return (
    readdirSync(root)
      // root is resolved and names are plain: no join's normalizing, a thousand times
      .filter((name) => isSessionId(name) && existsSync(`${root}/${name}/session.json`))
      .sort()
  );
}

/** What a list of goal sessions shows of each session's state.json: its summary, of its usage the total cost. */
const listedStateSchema = sessionSummarySchema.omit({ usage: true }).extend({ cost_usd: z.number() });
export type ListedState = z.infer<typeof listedStateSchema>;

/** A goal session in the list cache: its listed state, and the goal's first line. */
const goalSessionListing = listCacheFormat(
  'goal-sessions/1',
  z.object({ state: listedStateSchema.nullable(), goal: z.string() }).nullable(),
);

function listedState(summary: SessionSummary | null): ListedState | null {
  if (!summary) return null;
  const { usage, ...rest } = summary;
  return { ...rest, cost_usd: usage.total.cost_usd };
}

export interface GoalSessionSummary {
  id: string;
  dir: string;
  /** Null before the session's first state.json. */
  state: ListedState | null;
  goal: string;
  /** Why its state.json could not be read (torn, or not the format): the rest are listed all the same. */
  error?: unknown;
}

/**
 * The goal sessions under `cwd`, oldest first, as `loopy list` and `inbox` show them, through the list cache
 * (`.loopy_loop/sessions/.list-cache.json`): a session is read again only when its state.json has changed.
 */
export function readGoalSessionSummaries(cwd: string): GoalSessionSummary[] {
  const root = sessionsRoot(cwd);
  if (!existsSync(root)) return [];
  // listSessionIds' test for session.json is made only for a session the cache does not hold: one it holds had one
  const ids = readdirSync(root).filter(isSessionId).sort();
  const listed = readThroughListCache(
    goalSessionListing,
    `${root}/.list-cache.json`,
    // root is resolved and ids are plain names: no join's normalizing, a thousand times
    ids.map((id) => ({ name: id, file: `${root}/${id}/state.json` })),
    (id) => {
      const paths = sessionPaths(`${root}/${id}`);
      if (!existsSync(paths.session)) return null; // not a session (yet): a directory with an id's name
      return {
        state: listedState(readJsonIfExists(paths.state, sessionSummarySchema)),
        goal: firstLine(paths.goal),
      };
    },
  );
  return listed
    .filter(({ value, error }) => value !== null || error !== undefined)
    .map(({ name, value, error }) => ({
      id: name,
      dir: `${root}/${name}`,
      state: value?.state ?? null,
      goal: value?.goal ?? '',
      ...(error === undefined ? {} : { error }),
    }));
}

function firstLine(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n')[0] ?? '';
  } catch {
    return '';
  }
}
