import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { startDeliveryIteration } from '../../../src/work-item/session-dir';
import { startHostedTurns, type RunningHostedTurns } from '../../../src/worker/hosted-turns';
import { Tmux } from '../../../src/work-item/tmux';
import { runHook } from '../../support/run-hook';

const ITEM = 'github:octo/repo#7';

/**
 * The worker's half of hook-driven turns, with the plugin's real hook script reporting to it. Temporal is the only
 * double: the client the turn-ended report completes the delivering activity through.
 */
describe('hosted turns', () => {
  let turns: RunningHostedTurns;
  const completed: string[] = [];
  // A live pane in real tmux: the worker's heartbeat fails a pending turn whose pane is gone, and on a slow
  // machine it beats between the hooks below.
  const tmux = new Tmux(`tl-turns-${randomBytes(4).toString('hex')}`, process.env);
  const PANE = 'loop-turns';

  beforeAll(async () => {
    const token = (t: Uint8Array) => Buffer.from(t).toString();
    const client = {
      activity: {
        complete: (t: Uint8Array) => Promise.resolve(void completed.push(token(t))),
        fail: (t: Uint8Array) => Promise.resolve(void completed.push(`failed ${token(t)}`)),
        heartbeat: () => Promise.resolve(),
      },
      workflow: { getHandle: () => ({ signal: () => Promise.resolve() }) },
    } as unknown as Client;
    turns = await startHostedTurns({ dir: mkdtempSync(join(tmpdir(), 'tl-turns-')), client });
    await tmux.newSession(PANE, tmpdir());
  });
  afterAll(async () => {
    await turns.close();
    await tmux.run(['kill-server']);
  });

  it('a retried delivery that asks for its turn after the turn ended gets the ended turn, and awaits nothing', async () => {
    const env = await turns.openPane(ITEM);
    const sessionDir = mkdtempSync(join(tmpdir(), 'tl-turns-session-'));
    const pending = {
      work_item: ITEM,
      event_id: 'e1',
      iteration: 1,
      iteration_dir: startDeliveryIteration(sessionDir, 1, 'the event'),
      session_dir: sessionDir,
      target: PANE,
      socket: tmux.socket,
    };
    // the first attempt awaits the turn; the worker that ran it goes away before the turn ends
    expect(await turns.awaitTurn(ITEM, pending, Buffer.from('attempt-1'))).toBeNull();
    await runHook(
      'report-turn.mjs',
      { hook_event_name: 'UserPromptSubmit', session_id: 's', prompt: 'the event' },
      env,
    );
    // its retry has seen the turn pending; the turn ends before the retry asks for it
    expect((await turns.paneState(ITEM))?.pending?.event_id).toBe('e1');
    await runHook(
      'report-turn.mjs',
      { hook_event_name: 'Stop', session_id: 's', last_assistant_message: 'done' },
      env,
    );
    expect(completed).toEqual(['attempt-1']);
    const retried = await turns.awaitTurn(ITEM, pending, Buffer.from('attempt-2'));
    expect(retried).toEqual({ event_id: 'e1', iteration_dir: pending.iteration_dir });
    // nothing pending: the next event is not held behind a turn that will never end
    expect((await turns.paneState(ITEM))?.pending).toBeNull();
  });
});
