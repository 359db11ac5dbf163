import { Option } from '@commander-js/extra-typings';
import { CliError, EXIT, usageError } from '../../../errors';
import type { RestartReport } from '../../../workflows/work-item/messages';
import { runWithProcessIo, type Io } from '../../io';
import { describeMismatch } from '../../../work-item/env';
import { workItemSelection, sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type RestartOptions = SessionsOptions & {
  workItem: string[];
  all?: boolean;
  dryRun?: boolean;
  format: 'text' | 'json';
};

export function declareCommand(sessions: SessionsCommand): void {
  const selection = workItemSelection(
    "which work item's session to relaunch (repeatable)",
    'every running session this machine manages',
  );
  sessions
    .command('restart')
    .description('relaunch running sessions on the session environment the config declares now')
    .addOption(selection.workItem)
    .addOption(selection.all)
    .option('--dry-run', 'report what would be relaunched, and why the rest would not; touch no pane')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['text', 'json'] as const)
        .default('text' as const),
    )
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

function restartLine(row: RestartReport): string {
  switch (row.outcome) {
    case 'restarted':
      return `${row.workItem} restarted`;
    case 'would-restart':
      return `${row.workItem} would be restarted`;
    case 'skipped':
      return `${row.workItem} skipped — ${row.reason ?? ''}`;
    case 'unverified':
      return `${row.workItem} restarted, environment unverified — ${row.reason ?? 'it could not be read'}`;
    case 'mismatch':
      return `${row.workItem} restarted with a mismatched environment: ${row.mismatches.map(describeMismatch).join(', ')}`;
  }
}

/** `sessions restart`: relaunches in place on the declared environment; a mismatch left behind exits 1. */
export async function run(options: RestartOptions, io: Io): Promise<number> {
  if (!options.all && options.workItem.length === 0) {
    throw usageError('restart needs --work-item (repeatable) or --all: a bare restart is a usage error');
  }
  const { restartScope } = await import('../../../use-cases/restart.js');
  const { sessionVerb } = await import('../../../use-cases/session-verb.js');
  const { restartUpdate } = await import('../../../workflows/work-item/messages.js');
  const ctx = await sessionsContext(options);
  const scope = await restartScope(
    ctx,
    options.all ? { all: true } : { all: false, workItems: options.workItem },
  );
  for (const name of scope.refused) {
    io.err(`note: ${name} is a credential name: refused in env.sessionPassthrough, kept out instead`);
  }
  const dry = options.dryRun === true;
  const text = options.format === 'text';
  if (text) {
    const names = scope.forwarded.map((f) => f.name);
    io.out(
      `${dry ? 'would restart' : 'restarting'} ${scope.workItems.length} session(s): forwarding ${names.length} variable(s) [${names.join(', ')}], keeping out ${scope.keptOut.length} [${scope.keptOut.join(', ')}]`,
    );
  }
  // through each session's workflow when one runs, else on this machine
  const verb = { update: restartUpdate, what: 'restart' };
  const rows = await sessionVerb(ctx, scope.workItems, verb, { dryRun: dry }, (row) => {
    if (text) io.out(restartLine(row));
  });
  if (!text) {
    io.out(
      JSON.stringify(
        {
          dryRun: dry,
          forwarded: scope.forwarded,
          keptOut: scope.keptOut,
          refused: scope.refused,
          sessions: rows,
        },
        null,
        2,
      ),
    );
  }
  const bad = rows.filter((r) => r.outcome === 'mismatch');
  if (bad.length > 0) {
    throw new CliError(
      `${bad.length} session(s) do not hold the declared environment: ${bad
        .map((r) => `${r.workItem} (${r.mismatches.map((m) => m.name).join(', ')})`)
        .join('; ')}`,
      EXIT.failure,
    );
  }
  return EXIT.ok;
}
