import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AlreadyRegisteredError, registerWorkItem, updateFailureMessage } from '../temporal/work-items';
import type { OpenReport } from '../workflows/work-item-messages';
import { CliError, EXIT, usageError } from '../errors';
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
  return withTemporal(ctx, async (client) => {
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
}
