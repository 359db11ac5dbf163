import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
  /** What onTurnUsage was told: iteration and cost of each turn that spent something. */
  const spent: [number, number][] = [];
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
    turns = await startHostedTurns({
      dir: mkdtempSync(join(tmpdir(), 'tl-turns-')),
      client,
      onTurnUsage: (_item, _dir, iteration, usage) => void spent.push([iteration, usage.usage.cost_usd]),
    });
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

  it("a turn's cost is counted once: a turn cut short before it began counts nothing", async () => {
    const item = 'github:octo/repo#8';
    const env = await turns.openPane(item);
    const sessionDir = mkdtempSync(join(tmpdir(), 'tl-turns-session-'));
    const transcript = join(sessionDir, 'transcript.jsonl');
    writeFileSync(
      transcript,
      [
        { type: 'user', message: { role: 'user', content: 'the event' } },
        {
          type: 'assistant',
          message: {
            id: 'm1',
            model: 'claude-sonnet-4-5',
            stop_reason: 'end_turn',
            usage: { input_tokens: 1000, output_tokens: 100 },
          },
        },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    const pending = (n: number) => ({
      work_item: item,
      event_id: `e${n}`,
      iteration: n,
      iteration_dir: startDeliveryIteration(sessionDir, n, 'the event'),
      session_dir: sessionDir,
      target: PANE,
      socket: tmux.socket,
    });
    await turns.awaitTurn(item, pending(1), Buffer.from('turn-1'));
    const hook = (input: Record<string, unknown>) =>
      runHook('report-turn.mjs', { session_id: 's', transcript_path: transcript, ...input }, env);
    await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'the event' });
    await hook({ hook_event_name: 'Stop', last_assistant_message: 'done' });
    // Sonnet: 1000 in at $3, 100 out at $15 per million
    expect(spent).toEqual([[1, 0.0045]]);
    // the next event was pasted, but the pane is respawned before its turn began: the transcript is turn 1's
    await turns.awaitTurn(item, pending(2), Buffer.from('turn-2'));
    await turns.openPane(item);
    expect(completed).toContain('failed turn-2');
    expect(spent).toEqual([[1, 0.0045]]);
  });
});
