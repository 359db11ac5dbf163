import { Option, type Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { EXIT } from '../../../errors';
import { formatUsd } from '../../../pricing/money';
import type { ListStatusFilter } from '../../format-session';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';
import { alignColumns } from '../../table';

export type ListOptions = GlobalOptions & {
  status?: ListStatusFilter;
  format: 'table' | 'json';
};

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('list')
    .description('the sessions under the current directory')
    .addOption(
      new Option(
        '--status <status>',
        'only the sessions with this status (finished: stopped through control.json; waiting: on a person)',
      ).choices(['starting', 'running', 'paused', 'stopped', 'finished', 'waiting'] as const),
    )
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['table', 'json'] as const)
        .default('table' as const),
    )
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `loopy list`: the sessions under `cwd`, newest first, from their files alone. */
export async function run(options: ListOptions, io: Io, cwd = process.cwd()): Promise<number> {
  // The sessions' files are all it reads, but a --config that does not load is refused as by every other verb.
  await loadContext(options);
  const { goalWaiting } = await import('../../../session/goal-waiting.js');
  const { readGoalSessionSummaries } = await import('../../../session/goal-sessions.js');
  const { sessionsRoot } = await import('../../../session/paths.js');
  const { listStatusCell, matchesListStatus } = await import('../../format-session.js');
  const wanted = options.status ?? null;
  const root = sessionsRoot(cwd);
  const sessions = readGoalSessionSummaries(cwd);
  const unreadable = sessions.find((s) => s.error !== undefined);
  if (unreadable) throw unreadable.error;
  const rows = sessions
    .filter((row) => row.state && (wanted === null || matchesListStatus(row.state, wanted)))
    .reverse();
  if (options.format === 'json') {
    io.out(
      JSON.stringify(
        rows.map((r) => ({
          session_id: r.id,
          status: r.state?.status ?? 'unknown',
          iterations: r.state?.iteration ?? 0,
          cost_usd: r.state?.cost_usd ?? 0,
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
      formatUsd(r.state?.cost_usd ?? 0),
      r.goal.length > 60 ? `${r.goal.slice(0, 59)}…` : r.goal,
    ]),
  ]);
  // one write, not a thousand
  io.out(lines.join('\n'));
  return EXIT.ok;
}
