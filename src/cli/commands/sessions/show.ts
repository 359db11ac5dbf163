import { Argument, Option } from '@commander-js/extra-typings';
import { EXIT, usageError } from '../../../errors';
import type { SessionView } from '../../../use-cases/show';
import { printable, sinceText } from '../../inbox-lines';
import { runWithProcessIo, type Io } from '../../io';
import { spentLine } from '../../../work-item/spent-view';
import { sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type ShowOptions = SessionsOptions & { workItem?: string; format: 'text' | 'json' };

export function declareCommand(sessions: SessionsCommand): void {
  sessions
    .command('show')
    .description(
      'one session whole: its state, what it waits for and since when, its last reply, PRs, branch, attach command and Web UI link',
    )
    .addArgument(new Argument('[ref]', 'the work item, e.g. github:OWNER/REPO#15'))
    .option('--work-item <ref>', 'the work item (instead of REF)')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['text', 'json'] as const)
        .default('text' as const),
    )
    .action((ref, _options, command) =>
      runWithProcessIo(run, { ...command.optsWithGlobals(), workItem: ref ?? command.opts().workItem }),
    );
}

const REPLY_LINES = 20;

/** The text form: one `name: value` line each, then the last reply's last lines. */
export function describeSession(view: SessionView, now: number): string[] {
  const wait = view.waiting;
  const since = wait ? ` ${sinceText(wait.since, now)}` : '';
  const turn = view.last_turn;
  const fields: [string, string][] = [
    ['work item', view.work_item],
    ['status', `${view.status}${since}`],
    ...(wait ? ([['asked', printable(wait.detail)]] as [string, string][]) : []),
    ['cost', spentLine(view.record.spent)],
    ['node', view.node ?? '-'],
    ['harness', `${view.harness}${view.conversation ? ` (conversation ${view.conversation})` : ''}`],
    ['pull requests', view.pull_requests.length > 0 ? view.pull_requests.join(', ') : '-'],
    ['branch', view.branch ?? '-'],
    ['cwd', view.cwd ?? '-'],
    ['session dir', view.session_dir],
    ['attach', view.attach ?? '-'],
    ['web UI', view.web_ui ?? '-'],
    [
      'last turn',
      turn
        ? `${turn.iteration}, ${turn.success ? 'ended' : `failed: ${printable(turn.error ?? 'unknown error')}`}`
        : 'none has ended yet',
    ],
  ];
  const width = Math.max(...fields.map(([name]) => name.length)) + 2;
  const lines = fields.map(([name, value]) => `${`${name}:`.padEnd(width)}${value}`);
  if (!turn) return lines;
  return [
    ...lines,
    ...turn.reply
      .trimEnd()
      .split('\n')
      .slice(-REPLY_LINES)
      .map((l) => `  ${printable(l)}`),
  ];
}

/** `sessions show`: one work item's session, from its files (no Temporal); exit 1 without a record. */
export async function run(options: ShowOptions, io: Io): Promise<number> {
  if (!options.workItem) throw usageError('name the work item: `the-loop sessions show github:OWNER/REPO#N`');
  const { showSession } = await import('../../../use-cases/show.js');
  const view = await showSession(await sessionsContext(options), options.workItem);
  if (options.format === 'json') io.out(JSON.stringify(view, null, 2));
  else io.out(describeSession(view, Date.now()).join('\n'));
  return EXIT.ok;
}
