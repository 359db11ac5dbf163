import { Option } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import type { ListedRecord } from '../../../work-item/schemas';
import { shownStatus, waitingSince, type ListStatus } from '../../../work-item/waiting-view';
import { spentCell } from '../../../work-item/spent-view';
import { alignColumns } from '../../table';
import { runWithProcessIo, type Io } from '../../io';
import { sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type ListOptions = SessionsOptions & {
  status?: ListStatus;
  format: 'table' | 'json';
};

const COLUMNS: { title: string; value: (r: ListedRecord, node: string | null) => string }[] = [
  { title: 'WORK ITEM', value: (r) => r.work_item },
  { title: 'STATUS', value: (r) => shownStatus(r) },
  { title: 'SINCE', value: (r) => waitingSince(r) ?? '-' },
  { title: 'COST', value: (r) => spentCell(r.spent) },
  {
    title: 'LAST CONTROL',
    value: (r) => (r.last_control ? `${r.last_control.command} ${r.last_control.at}` : '-'),
  },
  { title: 'HARNESS', value: (r) => r.harness },
  { title: 'CONVERSATION', value: (r) => r.harness_session_id ?? '-' },
  { title: 'TMUX', value: (r) => (r.tmux ? r.tmux.session : '-') },
  { title: 'PRS', value: (r) => (r.pull_requests.length > 0 ? r.pull_requests.join(',') : '-') },
  { title: 'NODE', value: (_r, node) => node ?? '-' },
  { title: 'CWD', value: (r) => r.cwd ?? '-' },
];

export function declareCommand(sessions: SessionsCommand): void {
  sessions
    .command('list')
    .description(
      "each session's status — paused and waiting for a person included —, its process-graph node and its last control command",
    )
    .addOption(
      new Option('--status <status>', 'only the sessions with this status').choices([
        'active',
        'paused',
        'closed',
        'waiting',
      ] as const),
    )
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['table', 'json'] as const)
        .default('table' as const),
    )
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `sessions list`: the registry's records, read from files only (no Temporal). */
export async function run(options: ListOptions, io: Io): Promise<number> {
  const { listSessionRows, listSessions } = await import('../../../use-cases/list.js');
  const ctx = await sessionsContext(options);
  // JSON is the records whole; the table is what the list cache keeps of each
  const { registryDir, records, invalid, nodes } =
    options.format === 'json'
      ? await listSessions(ctx, options.status)
      : await listSessionRows(ctx, options.status);
  for (const bad of invalid) io.err(`warning: skipped ${bad.error}`);
  const node = (r: ListedRecord) => nodes.get(r.work_item) ?? null;
  if (options.format === 'json')
    io.out(
      JSON.stringify(
        records.map((r) => ({ ...r, node: node(r) })),
        null,
        2,
      ),
    );
  else if (records.length === 0)
    io.err(`no sessions${options.status ? ` with status ${options.status}` : ''} in ${registryDir}`);
  // one write for the table: a thousand sessions are otherwise a thousand system calls
  else
    io.out(
      alignColumns([
        COLUMNS.map((c) => c.title),
        ...records.map((r) => COLUMNS.map((c) => c.value(r, node(r)))),
      ]).join('\n'),
    );
  return EXIT.ok;
}
