import { goalWaiting } from '../../../session/goal-waiting';
import { sessionsRoot } from '../../../session/paths';
import { EXIT } from '../../../errors';
import { listStatusCell, matchesListStatus, type ListStatusFilter } from '../../format-session';
import { alignColumns } from '../../table';
import type { Io } from '../../io';
import { listSessionIds } from '../../locate-session';
import { readGoal, readState } from './session-files';
import { formatUsd } from '../../../pricing/money';

export interface ListOptions {
  status?: ListStatusFilter;
  format: 'table' | 'json';
}

/** `loopy list`: the sessions under `cwd`, newest first, from their files alone. */
export async function run(options: ListOptions, io: Io, cwd = process.cwd()): Promise<number> {
  const wanted = options.status ?? null;
  const root = sessionsRoot(cwd);
  const rows = listSessionIds(cwd)
    .map((id) => {
      const dir = `${root}/${id}`;
      const state = readState(dir);
      return { id, dir, state, goal: readGoal(dir).trim().split('\n')[0] ?? '' };
    })
    .filter((row) => row.state && (wanted === null || matchesListStatus(row.state, wanted)))
    .reverse();
  if (options.format === 'json') {
    io.out(
      JSON.stringify(
        rows.map((r) => ({
          session_id: r.id,
          status: r.state?.status ?? 'unknown',
          iterations: r.state?.iteration ?? 0,
          cost_usd: r.state?.usage.total.cost_usd ?? 0,
          stop: r.state?.stop ?? null,
          waiting: r.state ? goalWaiting(r.state) : null,
          started_at: r.state?.started_at ?? null,
          goal: r.goal,
          session_dir: r.dir,
        })),
        null,
        2,
      ),
    );
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.out(wanted ? `no ${wanted} sessions under ${root}` : `no sessions under ${root}`);
    return EXIT.ok;
  }
  const lines = alignColumns([
    ['SESSION', 'STATUS', 'ITER', 'COST', 'GOAL'],
    ...rows.map((r) => [
      r.id,
      r.state ? listStatusCell(r.state) : '?',
      String(r.state?.iteration ?? 0),
      formatUsd(r.state?.usage.total.cost_usd ?? 0),
      r.goal.length > 60 ? `${r.goal.slice(0, 59)}…` : r.goal,
    ]),
  ]);
  for (const line of lines) io.out(line);
  return EXIT.ok;
}
