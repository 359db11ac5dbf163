import { EXIT, usageError } from '../../../errors';
import type { ResetRow } from '../../../use-cases/reset';
import { runWithProcessIo, type Io } from '../../io';
import { workItemSelection, sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type ResetOptions = SessionsOptions & { workItem: string[]; all?: boolean; dryRun?: boolean };

export function declareCommand(sessions: SessionsCommand): void {
  const selection = workItemSelection(
    'which work item to reset (repeatable)',
    'every work item this machine holds state for',
  );
  sessions
    .command('reset')
    .description('forget everything this machine remembers about a work item, so it starts over')
    .addOption(selection.workItem)
    .addOption(selection.all)
    .option('--dry-run', 'report what would go; change nothing')
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

function rowLines(row: ResetRow): string[] {
  const { workItem } = row;
  if (row.dryRun) {
    return [
      ...(row.endedLiveSession ? [`${workItem}: would end a live session`] : []),
      ...(row.removedCheckout
        ? [`${workItem}: would remove the workspace checkout — uncommitted work in it is gone`]
        : []),
      row.removed.length > 0
        ? `${workItem}: would reset — remove ${row.removed.join(', ')}`
        : `${workItem}: nothing held on this machine`,
    ];
  }
  return [
    ...(row.endedLiveSession ? [`${workItem}: ended a live session`] : []),
    ...(row.removedCheckout
      ? [`${workItem}: removed the workspace checkout — uncommitted work in it is gone`]
      : []),
    row.removed.length > 0
      ? `${workItem}: reset — removed ${row.removed.join(', ')}`
      : `${workItem}: reset — nothing else was held on this machine`,
  ];
}

/** `sessions reset`: each work item's live session ended first, then its local state dropped. */
export async function run(options: ResetOptions, io: Io): Promise<number> {
  if (!options.all && options.workItem.length === 0) {
    throw usageError('reset needs --work-item (repeatable) or --all: a bare reset is a usage error');
  }
  const { resetSessions } = await import('../../../use-cases/reset.js');
  const dry = options.dryRun === true;
  const count = await resetSessions(
    await sessionsContext(options),
    options.all ? { all: true } : { all: false, workItems: options.workItem },
    dry,
    {
      warning: (text) => io.err(`warning: ${text}`),
      row: (row) => rowLines(row).forEach((line) => io.out(line)),
    },
  );
  io.out(`${dry ? 'would reset' : 'reset'} ${count} work item${count === 1 ? '' : 's'}`);
  return EXIT.ok;
}
