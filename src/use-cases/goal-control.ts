import { appendFileSync } from 'node:fs';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { CliError, EXIT, usageError } from '../errors';
import { sessionPaths } from '../session/paths';
import type { goalSession } from '../workflows/goal-session/workflow';
import { withTemporal, type SessionsContext } from './context';
import { MAX_REPLY_CHARS } from './reply';

/** What a person asks of a running goal session from outside its terminal (the board): what loopy's verbs send. */
export type GoalControl = { action: 'stop' } | { action: 'resume' } | { action: 'update'; text: string };

export interface GoalSessionRef {
  sessionId: string;
  sessionDir: string;
}

/**
 * Appends a person's words to updates_from_user.md and tells the workflow how many bytes arrived: the next turn
 * reads them first, and a session paused on a question or on refused tool calls resumes (`loopy update`).
 */
export async function sendUserUpdate(
  handle: WorkflowHandle<typeof goalSession>,
  sessionDir: string,
  text: string,
): Promise<string> {
  const { userUpdateSignal } = await import('../workflows/goal-session/messages.js');
  const entry = `${text}\n`;
  const file = sessionPaths(sessionDir).updatesFromUser;
  appendFileSync(file, entry);
  await handle.signal(userUpdateSignal, { bytes: Buffer.byteLength(entry) });
  return file;
}

/** Sends `control` to a goal session whose workflow still runs; one line saying what was sent. */
export async function controlGoalSession(
  ctx: SessionsContext,
  session: GoalSessionRef,
  control: GoalControl,
  asker: { by: string; via: string },
): Promise<string> {
  if (control.action === 'update') {
    const text = control.text.trim();
    if (text === '') throw usageError('the update is empty: say what should change');
    if (text.length > MAX_REPLY_CHARS)
      throw usageError(`the update is longer than ${MAX_REPLY_CHARS} characters`);
  }
  return withTemporal(ctx, async (client: Client) => {
    const handle = client.workflow.getHandle<typeof goalSession>(session.sessionId);
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING')
      throw new CliError(`session ${session.sessionId} has ended`, EXIT.failure);
    const { resumeSignal, stopSignal } = await import('../workflows/goal-session/messages.js');
    switch (control.action) {
      case 'stop':
        await handle.signal(stopSignal, {
          reason: `stopped from the ${asker.via} by ${asker.by}`,
          by: 'user',
        });
        return `${session.sessionId}: stop sent`;
      case 'resume':
        await handle.signal(resumeSignal);
        return `${session.sessionId}: resume sent`;
      case 'update':
        await sendUserUpdate(handle, session.sessionDir, control.text.trim());
        return `${session.sessionId}: answer sent; the next turn reads it first`;
    }
  });
}
