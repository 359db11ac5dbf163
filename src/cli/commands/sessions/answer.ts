import { Argument } from '@commander-js/extra-typings';
import { EXIT, usageError } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type AnswerOptions = SessionsOptions & { workItem: string; reason?: string; always?: boolean };

export function declareCommand(sessions: SessionsCommand): void {
  sessions
    .command('answer')
    .description(
      'answer what a work item waits for: its gate (approve, or reject with a reason) or the permission prompt in its pane (allow, or deny with a reason)',
    )
    .requiredOption('--work-item <ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .addArgument(
      new Argument('<answer>', 'approve or reject (a gate); allow or deny (a permission prompt)').choices([
        'approve',
        'reject',
        'allow',
        'deny',
      ] as const),
    )
    .option('--reason <text>', 'why (with reject or deny; a deny tells claude)')
    .option(
      '--always',
      "with allow: add the prompt's rule to the session's allowed tools, so it is not asked again",
    )
    .action((answer, _options, command) =>
      runWithProcessIo((options: AnswerOptions, io) => run(answer, options, io), command.optsWithGlobals()),
    );
}

/**
 * `sessions answer`: moves the work item past its gate and says where it is now, or answers the permission prompt its
 * pane shows.
 */
export async function run(
  answer: 'approve' | 'reject' | 'allow' | 'deny',
  options: AnswerOptions,
  io: Io,
): Promise<number> {
  if ((answer === 'approve' || answer === 'allow') && options.reason !== undefined)
    throw usageError(`--reason goes with ${answer === 'approve' ? 'reject' : 'deny'}`);
  if (answer !== 'allow' && options.always === true) throw usageError('--always goes with allow');
  if (answer === 'allow' || answer === 'deny') {
    const { answerPermissionPrompt } = await import('../../../use-cases/answer.js');
    const report = await answerPermissionPrompt(await sessionsContext(options), options.workItem, {
      decision: answer,
      reason: options.reason ?? null,
      always: options.always === true,
    });
    const verb =
      answer === 'deny' ? 'denied' : options.always === true ? 'allowed for this session' : 'allowed';
    io.out(`${report.workItem}: ${verb} ${report.asked}`);
    return EXIT.ok;
  }
  const { answerGate } = await import('../../../use-cases/answer.js');
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
