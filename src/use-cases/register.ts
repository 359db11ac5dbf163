import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AlreadyRegisteredError, registerWorkItem, updateFailureMessage } from '../temporal/work-items';
import type { OpenReport } from '../workflows/work-item/messages';
import { CliError, EXIT, usageError } from '../errors';
import { claudeConversationResumable, claudeTranscriptFile } from '../harness/claude-transcript';
import { harnessSessionIdProblem } from '../harness/session-ids';
import { canonicalWorkItem, withTemporal, workItemQueues, type SessionsContext } from './context';

export interface RegisterInput {
  workItem: string;
  harness: 'claude' | 'cursor';
  conversationId: string;
  cwd: string;
  force: boolean;
}

/** Records a harness conversation as the one active session of a work item, through its workflow. */
export async function registerSession(ctx: SessionsContext, input: RegisterInput): Promise<OpenReport> {
  const workItem = canonicalWorkItem(input.workItem);
  const conversationId = input.conversationId.trim();
  const problem = harnessSessionIdProblem(input.harness, conversationId);
  if (problem) throw usageError(`--harness-session-id: ${problem}`);
  const cwd = resolve(input.cwd);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw usageError(`--cwd ${cwd} is not a directory`);
  // Registration is bookkeeping and goes ahead; but a claude id with no conversation in --cwd cannot be resumed
  // there, so the session would open a new conversation: say so now.
  const notFound =
    input.harness === 'claude' && !(await claudeConversationResumable(cwd, conversationId, process.env))
      ? `no claude conversation ${conversationId} was found for ${cwd} (looked for ${claudeTranscriptFile(cwd, conversationId, process.env)}): resume is scoped to the directory the conversation was started in — the session will open a new conversation there instead`
      : null;
  const report = await withTemporal(ctx, async (client) => {
    try {
      return await registerWorkItem(client, workItemQueues(ctx), {
        workItem,
        harness: input.harness,
        conversationId,
        cwd,
        force: input.force,
      });
    } catch (error) {
      if (error instanceof AlreadyRegisteredError) throw new CliError(error.message, EXIT.failure);
      if (
        input.force &&
        /terminated|completed|not found|aborted by closing/i.test(updateFailureMessage(error))
      ) {
        throw new CliError(`${workItem}: this registration was replaced by a later --force registration`);
      }
      throw new CliError(`could not register ${workItem}: ${updateFailureMessage(error)}`, EXIT.failure);
    }
  });
  return notFound ? { ...report, warnings: [notFound, ...report.warnings] } : report;
}
