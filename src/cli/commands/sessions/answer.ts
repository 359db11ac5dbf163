import { Argument } from '@commander-js/extra-typings';
import { EXIT, usageError } from '../../../errors';
import type { Io } from '../../io';
import { runWithProcessIo, sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type AnswerOptions = SessionsOptions & { workItem: string; reason?: string };

export function declareCommand(sessions: SessionsCommand): void {
  sessions
    .command('answer')
    .description('answer the gate a work item waits at: approve, or reject with a reason')
    .requiredOption('--work-item <ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .addArgument(new Argument('<answer>', 'approve or reject').choices(['approve', 'reject'] as const))
    .option('--reason <text>', 'why (with reject)')
    .action((answer, _options, command) =>
      runWithProcessIo((options: AnswerOptions, io) => run(answer, options, io), command.optsWithGlobals()),
    );
}

/** `sessions answer`: moves the work item past its gate and says where it is now. */
export async function run(answer: 'approve' | 'reject', options: AnswerOptions, io: Io): Promise<number> {
  if (answer === 'approve' && options.reason !== undefined) throw usageError('--reason goes with reject');
  const { answerGate } = await import('../../../sessions/answer.js');
  const report = await answerGate(await sessionsContext(options), options.workItem, {
    answer,
    reason: options.reason ?? null,
  });
  io.out(
    `${report.workItem}: ${answer === 'approve' ? 'approved' : 'rejected'} ${report.from} → ${report.to}`,
  );
  io.out(report.details);
  for (const warning of report.warnings) io.err(`warning: ${warning}`);
  return EXIT.ok;
}
