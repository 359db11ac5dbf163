import { Argument } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type OutcomeOptions = SessionsOptions & { workItem: string; node?: string };

export function declareCommand(sessions: SessionsCommand): void {
  sessions
    .command('outcome')
    .description("report how the work item's current agent node ended: success or failure")
    .requiredOption('--work-item <ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .addArgument(new Argument('<outcome>', 'success or failure').choices(['success', 'failure'] as const))
    .option('--node <id>', 'the node the outcome is for (default: the current one); another node is refused')
    .action((outcome, _options, command) =>
      runWithProcessIo((options: OutcomeOptions, io) => run(outcome, options, io), command.optsWithGlobals()),
    );
}

/** `sessions outcome`: moves the work item past its agent node and says where it is now. */
export async function run(outcome: 'success' | 'failure', options: OutcomeOptions, io: Io): Promise<number> {
  const { reportOutcome } = await import('../../../use-cases/outcome.js');
  const report = await reportOutcome(await sessionsContext(options), options.workItem, {
    outcome,
    node: options.node ?? null,
  });
  io.out(`${report.workItem}: ${report.from} ${outcome} → ${report.to}`);
  io.out(report.details);
  for (const warning of report.warnings) io.err(`warning: ${warning}`);
  return EXIT.ok;
}
