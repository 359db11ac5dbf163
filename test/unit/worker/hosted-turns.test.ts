import { randomBytes } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { startDeliveryIteration } from '../../../src/work-item/session-dir';
import { startHostedTurns, type RunningHostedTurns } from '../../../src/worker/hosted-turns';
import { Tmux } from '../../../src/work-item/tmux';
import { pollUntil } from '../../../src/process/poll-until';
import { runHook } from '../../support/run-hook';
import { HOOK_SPOOL_ENV } from '../../../src/hook-channel/protocol';

const ITEM = 'github:octo/repo#7';

/**
 * The worker's half of hook-driven turns, with the plugin's real hook script reporting to it. Temporal is the only
 * double: the client the turn-ended report completes the delivering activity through.
 */
describe('hosted turns', () => {
  let turns: RunningHostedTurns;
  const completed: string[] = [];
  /** The task tokens the worker heartbeated, one per beat (every 5 s while a turn is pending). */
  const beats: string[] = [];
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
        heartbeat: (t: Uint8Array) => Promise.resolve(void beats.push(token(t))),
      },
      workflow: { getHandle: () => ({ signal: () => Promise.resolve() }) },
    } as unknown as Client;
    turns = await startHostedTurns({
      dir: mkdtempSync(join(tmpdir(), 'tl-turns-')),
      client,
      onTurnUsage: (_item, _dir, iteration, usage) => {
        spent.push([iteration, usage.usage.cost_usd]);
        return Promise.resolve({ spentUsd: usage.usage.cost_usd, budget: null });
      },
    });
    await tmux.newSession(PANE, tmpdir());
  });
  /** Turn n of a work item's session, as a delivery hands it to the worker (its iteration directory made). */
  const pendingTurn = (item: string, sessionDir: string, n: number, text: string) => ({
    work_item: item,
    event_id: `e${n}`,
    iteration: n,
    iteration_dir: startDeliveryIteration(sessionDir, n, text),
    session_dir: sessionDir,
    target: PANE,
    socket: tmux.socket,
  });
  afterAll(async () => {
    await turns.close();
    await tmux.run(['kill-server']);
  });

  it('a retried delivery that asks for its turn after the turn ended gets the ended turn, and awaits nothing', async () => {
    const { env } = await turns.openPane(ITEM);
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
    const { env } = await turns.openPane(item);
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
    const pending = (n: number) => pendingTurn(item, sessionDir, n, 'the event');
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

  it('a spooled report that later ones overtook is ignored when the spool is replayed, and one seen twice counts once', async () => {
    const item = 'github:octo/repo#11';
    const { env } = await turns.openPane(item);
    const spool = env[HOOK_SPOOL_ENV] ?? '';
    const sessionDir = mkdtempSync(join(tmpdir(), 'tl-turns-session-'));
    const pending = (n: number) => pendingTurn(item, sessionDir, n, `event ${n}`);
    // a turn-started report as a hook that found no worker spools it (plugin/hooks/lib.mjs: one JSON a line)
    const started = (prompt: string) =>
      JSON.stringify({
        schema_version: 1,
        harness: 'claude',
        harness_session_id: 's',
        cwd: null,
        at: new Date().toISOString(),
        event: 'turn-started',
        prompt,
        transcript_path: null,
      });
    await turns.awaitTurn(item, pending(1), Buffer.from('spooled-1'));
    // turn 1's turn-started report was spooled; the turn went on, and its Stop report reached the worker
    const oldNews = started('event 1');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await runHook(
      'report-turn.mjs',
      { hook_event_name: 'Stop', session_id: 's', last_assistant_message: 'done' },
      env,
    );
    expect(completed).toContain('spooled-1');
    // event 2 is pasted; its turn-started report is spooled too, and a replay cut short hands it over twice
    await turns.awaitTurn(item, pending(2), Buffer.from('spooled-2'));
    const before = (await turns.paneState(item))?.turns_started ?? 0;
    const turn2 = started('event 2');
    appendFileSync(spool, `${oldNews}\n${turn2}\n${turn2}\n`);
    // the channel's sweep replays the spool, then removes it
    await pollUntil(() => !existsSync(spool) && !existsSync(`${spool}.replaying`), {
      timeoutMs: 60_000,
      intervalMs: 50,
    });
    const after = await turns.paneState(item);
    // turn 1's report is not taken for turn 2's start, and turn 2 began once
    expect(after).toMatchObject({ turns_started: before + 1, turn_running: true, last_prompt: 'event 2' });
    expect(after?.pending?.event_id).toBe('e2');
    await runHook(
      'report-turn.mjs',
      { hook_event_name: 'Stop', session_id: 's', last_assistant_message: 'two' },
      env,
    );
    expect(completed).toContain('spooled-2');
  });

  it('Esc ends the turn it interrupted, not the next one, whose turn-started report is still to come', async () => {
    const item = 'github:octo/repo#12';
    const { env } = await turns.openPane(item);
    const sessionDir = mkdtempSync(join(tmpdir(), 'tl-turns-session-'));
    const transcript = join(sessionDir, 'transcript.jsonl');
    const user = (content: unknown) =>
      `${JSON.stringify({ type: 'user', message: { role: 'user', content } })}\n`;
    writeFileSync(transcript, user('event 1'));
    const pending = (n: number) => pendingTurn(item, sessionDir, n, `event ${n}`);
    const hook = (input: Record<string, unknown>) =>
      runHook('report-turn.mjs', { session_id: 's', transcript_path: transcript, ...input }, env);
    await turns.awaitTurn(item, pending(1), Buffer.from('esc-1'));
    await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'event 1' });
    // a person presses Esc: claude writes its marker to the transcript, and runs no Stop hook
    appendFileSync(transcript, user([{ type: 'text', text: '[Request interrupted by user for tool use]' }]));
    await pollUntil(() => completed.includes('esc-1'), { timeoutMs: 60_000, intervalMs: 50 });
    // the next event is pasted: claude writes it to the transcript before its turn-started report comes
    const second = pending(2);
    await turns.awaitTurn(item, second, Buffer.from('esc-2'));
    appendFileSync(transcript, user('event 2'));
    const beaten = beats.filter((b) => b === 'esc-2').length;
    // two beats: the first to see the transcript grow has looked for a marker by the second
    await pollUntil(() => beats.filter((b) => b === 'esc-2').length >= beaten + 2, {
      timeoutMs: 60_000,
      intervalMs: 50,
    });
    expect(completed).not.toContain('esc-2');
    expect((await turns.paneState(item))?.pending?.event_id).toBe('e2');
    await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'event 2' });
    // its reply, complete (its usage is counted as the turn ends)
    appendFileSync(
      transcript,
      `${JSON.stringify({ type: 'assistant', message: { id: 'm2', model: 'claude-sonnet-4-5', stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 1 } } })}\n`,
    );
    await hook({ hook_event_name: 'Stop', last_assistant_message: 'two' });
    expect(completed).toContain('esc-2');
    expect(JSON.parse(readFileSync(join(second.iteration_dir, 'result.json'), 'utf8'))).toMatchObject({
      success: true,
      text: 'two',
    });
  });

  describe('a worker killed while it ends a turn', () => {
    const entry = (id: string, stop: string, input: number) =>
      JSON.stringify({
        type: 'assistant',
        message: {
          id,
          model: 'claude-sonnet-4-5',
          stop_reason: stop,
          usage: { input_tokens: input, output_tokens: 100 },
        },
      });
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const stopped: RunningHostedTurns[] = [];
    const transcripts: string[] = [];
    afterAll(async () => {
      // the first workers go on from where they were held, and stop
      release();
      for (const transcript of transcripts) appendFileSync(transcript, `${entry('m9', 'end_turn', 1)}\n`);
      for (const worker of stopped) await worker.close();
    });

    /**
     * The first worker gets the turn-ended report and stops where `stuck` holds it (what a kill -9 there leaves); the
     * next worker starts from a copy of its directory, as after the kill, and is what completes the activity.
     */
    async function killedWhileEnding(item: string, stuck: 'settling' | 'counting') {
      const dir = mkdtempSync(join(tmpdir(), 'tl-turns-'));
      const sessionDir = mkdtempSync(join(tmpdir(), 'tl-turns-session-'));
      const transcript = join(sessionDir, 'transcript.jsonl');
      // settling: the turn's last message asks for a tool, so its usage is not complete yet
      writeFileSync(transcript, `${entry('m1', stuck === 'settling' ? 'tool_use' : 'end_turn', 1000)}\n`);
      transcripts.push(transcript);
      const first = await startHostedTurns({
        dir,
        client: { activity: { heartbeat: () => Promise.resolve() } } as unknown as Client,
        transcriptSettleMs: stuck === 'settling' ? 600_000 : 0,
        onTurnUsage: () => released.then(() => null),
      });
      stopped.push(first);
      const { env } = await first.openPane(item);
      const pending = {
        work_item: item,
        event_id: 'e1',
        iteration: 1,
        iteration_dir: startDeliveryIteration(sessionDir, 1, 'the event'),
        session_dir: sessionDir,
        target: PANE,
        socket: tmux.socket,
      };
      await first.awaitTurn(item, pending, Buffer.from(`${item} turn-1`));
      const hook = (input: Record<string, unknown>) =>
        runHook('report-turn.mjs', { session_id: 's', transcript_path: transcript, ...input }, env);
      await hook({ hook_event_name: 'UserPromptSubmit', prompt: 'the event' });
      // the Stop hook's answer never comes: it gives up, or its worker is gone
      void hook({ hook_event_name: 'Stop', last_assistant_message: 'done' });
      const kept = await pollUntil(
        async () => {
          const ending = (await first.paneState(item))?.ending;
          return ending && ending.recorded === (stuck === 'counting') ? ending : null;
        },
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      expect(kept).toMatchObject({ event_id: 'e1', reply: 'done', transcript });
      const next = mkdtempSync(join(tmpdir(), 'tl-turns-'));
      cpSync(dir, next, { recursive: true, filter: (from) => !from.endsWith('hooks.sock') });
      return { next, transcript, pending };
    }

    async function nextWorker(dir: string) {
      const done: string[] = [];
      const counted: [number, number][] = [];
      const client = {
        activity: {
          complete: (t: Uint8Array, result: { reply: string | null }) =>
            Promise.resolve(void done.push(`${Buffer.from(t).toString()}: ${result.reply}`)),
          fail: (t: Uint8Array) => Promise.resolve(void done.push(`failed ${Buffer.from(t).toString()}`)),
          heartbeat: () => Promise.resolve(),
        },
        workflow: { getHandle: () => ({ signal: () => Promise.resolve() }) },
      } as unknown as Client;
      const worker = await startHostedTurns({
        dir,
        client,
        transcriptSettleMs: 0,
        onTurnUsage: (_item, _dir, iteration, usage) => {
          counted.push([iteration, usage.usage.cost_usd]);
          return Promise.resolve({ spentUsd: usage.usage.cost_usd, budget: null });
        },
      });
      stopped.push(worker);
      return { worker, done, counted };
    }

    const resultOf = (iterationDir: string) =>
      JSON.parse(readFileSync(join(iterationDir, 'result.json'), 'utf8')) as {
        success: boolean;
        text: string;
        usage?: { cost_usd: number };
      };

    it('killed as it counted the turn: the next worker completes it with what result.json recorded', async () => {
      const item = 'github:octo/repo#9';
      const { next, pending, transcript } = await killedWhileEnding(item, 'counting');
      // Sonnet: 1000 in at $3, 100 out at $15 per million
      expect(resultOf(pending.iteration_dir)).toMatchObject({
        success: true,
        text: 'done',
        usage: { cost_usd: 0.0045 },
      });
      // the transcript grows after the turn was recorded: what the next worker completes with is what was recorded
      appendFileSync(transcript, `${entry('m2', 'end_turn', 9000)}\n`);
      const { worker, done, counted } = await nextWorker(next);
      // the turn is ended once the pane's state no longer holds it (written after the completion)
      await pollUntil(async () => (await worker.paneState(item))?.pending === null, {
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      expect(done).toEqual([`${item} turn-1: done`]);
      expect(counted).toEqual([[1, 0.0045]]);
      expect(resultOf(pending.iteration_dir).usage?.cost_usd).toBe(0.0045);
      const state = await worker.paneState(item);
      expect(state?.pending).toBeNull();
      expect(state?.ending).toBeNull();
      expect(state?.last_ended?.event_id).toBe('e1');
    });

    it('killed while the turn settled: the next worker records and completes it from the kept report', async () => {
      const item = 'github:octo/repo#10';
      const { next, pending } = await killedWhileEnding(item, 'settling');
      expect(() => resultOf(pending.iteration_dir)).toThrow();
      const { worker, done, counted } = await nextWorker(next);
      // the turn is ended once the pane's state no longer holds it (written after the completion)
      await pollUntil(async () => (await worker.paneState(item))?.pending === null, {
        timeoutMs: 30_000,
        intervalMs: 50,
      });
      expect(done).toEqual([`${item} turn-1: done`]);
      expect(resultOf(pending.iteration_dir)).toMatchObject({
        success: true,
        text: 'done',
        usage: { cost_usd: 0.0045 },
      });
      expect(counted).toEqual([[1, 0.0045]]);
      expect((await worker.paneState(item))?.pending).toBeNull();
    });
  });
});
