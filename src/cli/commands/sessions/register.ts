import { Option } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type RegisterOptions = SessionsOptions & {
  workItem: string;
  harness: 'claude' | 'cursor';
  harnessSessionId: string;
  cwd: string;
  force?: boolean;
};

export function declareCommand(sessions: SessionsCommand): void {
  sessions
    .command('register')
    .description('record a harness session as the one active session of a work item')
    .requiredOption('--work-item <ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .addOption(
      new Option('--harness <name>', 'the harness the session runs in')
        .choices(['claude', 'cursor'] as const)
        .makeOptionMandatory(),
    )
    .requiredOption('--harness-session-id <id>', 'Claude session id, or Cursor chat id')
    .option('--cwd <dir>', 'directory the session runs in — resume is scoped to it', '.')
    .option('--force', 'replace an existing active registration for this work item')
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `sessions register`: opens the work item's workflow on a known conversation. */
export async function run(options: RegisterOptions, io: Io): Promise<number> {
  const { registerSession } = await import('../../../use-cases/register.js');
  const report = await registerSession(await sessionsContext(options), {
    workItem: options.workItem,
    harness: options.harness,
    conversationId: options.harnessSessionId,
    cwd: options.cwd,
    force: options.force === true,
  });
  for (const warning of report.warnings) io.err(`warning: ${warning}`);
  io.out(
    `registered ${report.workItem}: ${report.harness} session ${report.conversationId ?? '-'} in ${report.cwd ?? '-'}${options.force ? ' (replacing any earlier registration)' : ''}`,
  );
  return EXIT.ok;
}
