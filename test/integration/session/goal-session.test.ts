import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { HISTORY_TEXT_LIMIT } from '../../../src/activities/turn-result';
import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import { readJsonFile } from '../../../src/session/json-file';
import { readJsonl } from '../../../src/session/jsonl';
import {
  controlFileSchema,
  goalCheckFileSchema,
  resultFileSchema,
  sessionEventSchema,
  sessionFileSchema,
  historyEntrySchema,
  sessionStateFileSchema,
  childrenFileSchema,
} from '../../../src/session/schemas';
import {
  claudeEnv,
  realClaudeBin,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import { scriptGoalLoops, untilFile, type AgentPlay } from '../../support/scripted-agent';
import { startTestWorker, testClient, testConfig, type TestWorker } from '../../support/temporal';

function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      const rel = relative(dir, full);
      if (statSync(full).isDirectory()) {
        out.push(`${rel}/`);
        walk(full);
      } else out.push(rel);
    }
  };
  walk(dir);
  return out;
}

/**
 * Goal sessions driven by the REAL claude CLI against the mock Anthropic API (turns scripted by iteration number).
 * The worker runs in this process, so the harness inherits this process's environment: the mock's URL, a dummy key
 * and a scratch HOME.
 */
describe('goal session on the real dev server with the real claude', () => {
  let client: Client;
  let connection: Connection;
  let worker: TestWorker;
  let mock: MockAnthropic;
  const saved = { ...process.env };
  const config = testConfig({
    harness: { claude: { command: realClaudeBin() } },
    worker: { heartbeatTimeout: '10s' },
  });
  /** Every turn plays `fallback`, except those `byIteration` names. */
  const script = (fallback: AgentPlay, byIteration: Record<number, AgentPlay> = {}) =>
    scriptGoalLoops(mock, (turn) => byIteration[turn.iteration] ?? fallback);

  beforeAll(async () => {
    mock = await startMockAnthropic();
    Object.assign(process.env, claudeEnv(mock).env);
    ({ client, connection } = await testClient());
    worker = await startTestWorker({
      config: { ...config, temporal: { ...config.temporal, taskQueue: `goal-${Date.now()}` } },
    });
  });
  afterAll(async () => {
    await worker.shutdown();
    await connection.close();
    await mock.close();
    process.env = saved;
  });

  function input(
    goal: string,
    extra: Parameters<typeof buildSessionInput>[1] extends infer O ? Partial<O> : never = {},
  ) {
    const cwd = mkdtempSync(join(tmpdir(), 'loopy-cwd-'));
    const base = buildSessionInput(
      {
        ...config,
        temporal: { ...config.temporal, taskQueue: worker.taskQueue },
        worker: { ...config.worker, hostId: 'testhost' },
      },
      { goal, cwd, harness: 'claude', ...extra },
    );
    return base;
  }

  it('a 5-iteration session produces exactly the layout doc tree, valid files, ordered events and 5 history entries', async () => {
    script({ costUsd: 0.01, text: 'did a step' });
    const sessionInput = input('Make the README say hello', { maxIterations: 5 });
    const handle = await startGoalSession(client, sessionInput);
    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    expect(result.iterations).toBe(5);

    const dir = sessionInput.sessionDir;
    const files = tree(dir)
      .filter((p) => p === 'harness_outputs/' || !p.startsWith('harness_outputs/'))
      .map((p) => p.replace(/\/attempts\/attempt-1\.[0-9a-f]+\/$/, '/attempts/attempt-1.<tag>/'));
    expect(files).toEqual([
      'child_requests/',
      'children/',
      'children.json',
      'control.json',
      'eval_checks/',
      'eval_results/',
      'events.jsonl',
      'goal.md',
      'harness_outputs/',
      'history.jsonl',
      'iterations/',
      ...['0001_planner', '0002_worker', '0003_goal_check', '0004_worker', '0005_worker'].flatMap((it) => [
        `iterations/${it}/`,
        `iterations/${it}/attempts/`,
        `iterations/${it}/attempts/attempt-1.<tag>/`, // the one attempt's lease, empty
        ...(it.endsWith('goal_check') ? [`iterations/${it}/goal_check.json`] : []),
        `iterations/${it}/harness_run_id.txt`,
        `iterations/${it}/prompt.txt`,
        `iterations/${it}/result.json`,
        `iterations/${it}/result_text.txt`,
      ]),
      'project_state/',
      'project_state/README.md',
      'project_state/finished.md',
      'session.json',
      'state.json',
      'updates_from_user.md',
    ]);
    const outputs = readdirSync(join(dir, 'harness_outputs')).sort();
    expect(outputs).toEqual(['0001_planner', '0002_worker', '0003_goal_check', '0004_worker', '0005_worker']);
    for (const it of outputs) {
      const runId = readFileSync(join(dir, 'iterations', it, 'harness_run_id.txt'), 'utf8');
      expect(existsSync(join(dir, 'harness_outputs', it, runId, 'stdout.txt'))).toBe(true);
      const res = readJsonFile(join(dir, 'iterations', it, 'result.json'), resultFileSchema);
      expect(res).toEqual({
        success: true,
        text: 'did a step',
        error: null,
        harness_run_id: runId,
        harness_output_dir: relative(sessionInput.cwd, join(dir, 'harness_outputs', it, runId)),
        harness_session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect(readFileSync(join(dir, 'iterations', it, 'result_text.txt'), 'utf8')).toBe('did a step');
      expect(readFileSync(join(dir, 'iterations', it, 'prompt.txt'), 'utf8')).toContain(
        'Make the README say hello',
      );
    }
    expect(
      readJsonFile(join(dir, 'iterations', '0003_goal_check', 'goal_check.json'), goalCheckFileSchema)
        .goal_met,
    ).toBe(false);

    const session = readJsonFile(join(dir, 'session.json'), sessionFileSchema);
    expect(session.session_id).toBe(sessionInput.sessionId);
    expect(readFileSync(join(dir, 'goal.md'), 'utf8')).toBe('Make the README say hello\n');
    const state = readJsonFile(join(dir, 'state.json'), sessionStateFileSchema);
    expect(state.history).toHaveLength(5);
    expect(state.status).toBe('stopped');
    expect(state.stop.kind).toBe('max_iterations');
    expect(state.usage.total.cost_usd).toBeCloseTo(0.05);
    const control = readJsonFile(join(dir, 'control.json'), controlFileSchema);
    expect(control.state).toBe('stopped');
    expect(control.reason).toBe(state.stop.reason);
    readJsonFile(join(dir, 'children.json'), childrenFileSchema);

    const events = readJsonl(join(dir, 'events.jsonl'), sessionEventSchema);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.every((e) => e.v === 1)).toBe(true);
    expect(events[0]?.type).toBe('session_started');
    expect(events.at(-1)?.type).toBe('session_stopped');
    expect(events.filter((e) => e.type === 'iteration_finished').map((e) => e.iteration)).toEqual([
      1, 2, 3, 4, 5,
    ]);
  });

  it('the agent writing control.json ends the session right after that iteration, with its reason', async () => {
    script({}, { 2: { control: { state: 'stopped', reason: 'goal met: README says hello' } } });
    const sessionInput = input('stop me on turn two', { maxIterations: 10 });
    const result = await (await startGoalSession(client, sessionInput)).result();
    expect(result.stop).toEqual({ kind: 'control', reason: 'goal met: README says hello' });
    expect(result.iterations).toBe(2);
    const state = readJsonFile(join(sessionInput.sessionDir, 'state.json'), sessionStateFileSchema);
    expect(state.stop.reason).toBe('goal met: README says hello');
    expect(readJsonFile(join(sessionInput.sessionDir, 'control.json'), controlFileSchema).reason).toBe(
      'goal met: README says hello',
    );
  });

  it("a long reply is whole in result.json and result_text.txt, and clipped in the workflow's history", async () => {
    const reply = `${'all work and no play '.repeat(500)}the end`;
    script({ text: reply });
    const sessionInput = input('reply at length', { maxIterations: 1 });
    const handle = await startGoalSession(client, sessionInput);
    await handle.result();
    const iterationDir = join(sessionInput.sessionDir, 'iterations', '0001_planner');
    expect(readJsonFile(join(iterationDir, 'result.json'), resultFileSchema).text).toBe(reply);
    expect(readFileSync(join(iterationDir, 'result_text.txt'), 'utf8')).toBe(reply);
    // The outcomes as stored in the history: the activity results that carry a turn's result.
    const outcomes = ((await handle.fetchHistory()).events ?? [])
      .map((e) => e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data)
      .filter((data): data is Uint8Array => data instanceof Uint8Array && data.length > 0)
      .map((data) => JSON.parse(Buffer.from(data).toString('utf8')) as { result?: { text: string } })
      .filter((value) => value?.result !== undefined);
    expect(outcomes).toHaveLength(1);
    const outcome = outcomes[0] as { result: { text: string } };
    expect(outcome.result.text.length).toBeLessThan(HISTORY_TEXT_LIMIT + 100);
    expect(outcome.result.text).toContain(`[${reply.length} characters in all: see result_text.txt]`);
  });

  it('a long session continues as new: turns, events and state.json go on without a gap', async () => {
    script({});
    // Few turns (each starts the real CLI): a low threshold makes the run continue as new after the second or third.
    const sessionInput = {
      ...input('continue me as new', { maxIterations: 6 }),
      continueAsNewAfterEvents: 20,
    };
    const handle = await startGoalSession(client, sessionInput);
    const result = await handle.result();
    expect(result).toMatchObject({ iterations: 6, stop: { kind: 'max_iterations' } });
    const first = await client.workflow
      .getHandle(sessionInput.sessionId, handle.firstExecutionRunId)
      .describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');

    const state = readJsonFile(join(sessionInput.sessionDir, 'state.json'), sessionStateFileSchema);
    expect(state.history.map((h) => h.iteration)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(state.stop.kind).toBe('max_iterations');
    const events = [...readJsonl(join(sessionInput.sessionDir, 'events.jsonl'), sessionEventSchema)];
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'session_started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'iteration_finished')).toHaveLength(6);
    expect(readdirSync(join(sessionInput.sessionDir, 'iterations'))).toHaveLength(6);
  });

  it('state.json and history.jsonl deleted mid-session are rewritten whole from the workflow', async () => {
    const release = join(mkdtempSync(join(tmpdir(), 'loopy-release-')), 'go');
    const played = script({}, { 6: { until: untilFile(release) } });
    const sessionInput = input('lose my state file', { maxIterations: 8 });
    const handle = await startGoalSession(client, sessionInput);
    const stateFile = join(sessionInput.sessionDir, 'state.json');
    while (played.turns.length < 6) await new Promise((r) => setTimeout(r, 50));
    // Turn 6 runs: both files hold entries 1–5. Gone (state.json alone would be rebuilt from history.jsonl), the
    // next projection would rebuild them from its newest four.
    rmSync(stateFile);
    rmSync(join(sessionInput.sessionDir, 'history.jsonl'));
    writeFileSync(release, '');
    const result = await handle.result();
    expect(result.iterations).toBe(8);
    const state = readJsonFile(stateFile, sessionStateFileSchema);
    expect(state.history.map((h) => h.iteration)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const held = readJsonl(join(sessionInput.sessionDir, 'history.jsonl'), historyEntrySchema);
    expect([...new Set(held.map((h) => h.iteration))].sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    const events = [...readJsonl(join(sessionInput.sessionDir, 'events.jsonl'), sessionEventSchema)];
    const repaired = events.filter((e) => e.type === 'projection_repaired');
    expect(repaired).toHaveLength(1);
    expect(repaired[0]?.data).toMatchObject({ history_entries: expect.any(Number) });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it('events.jsonl deleted after a continue-as-new is rebuilt whole from the workflow histories', async () => {
    const release = join(mkdtempSync(join(tmpdir(), 'loopy-release-')), 'go');
    const played = script({}, { 5: { until: untilFile(release) } });
    const sessionInput = {
      ...input('lose my event log', { maxIterations: 6 }),
      continueAsNewAfterEvents: 20,
    };
    const handle = await startGoalSession(client, sessionInput);
    const eventsFile = join(sessionInput.sessionDir, 'events.jsonl');
    while (played.turns.length < 5) await new Promise((r) => setTimeout(r, 50));
    const before = [...readJsonl(eventsFile, sessionEventSchema)].map((e) => e.seq);
    rmSync(eventsFile);
    writeFileSync(release, '');
    const result = await handle.result();
    expect(result.iterations).toBe(6);
    // The run it was deleted in had continued from an earlier one: the rebuild walked back through both.
    const first = await client.workflow
      .getHandle(sessionInput.sessionId, handle.firstExecutionRunId)
      .describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
    const events = [...readJsonl(eventsFile, sessionEventSchema)];
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.seq).slice(0, before.length)).toEqual(before);
    expect(events.filter((e) => e.type === 'session_started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'iteration_finished').map((e) => e.iteration)).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
    const repaired = events.filter((e) => e.type === 'projection_repaired');
    expect(repaired).toHaveLength(1);
    expect(repaired[0]?.data).toMatchObject({ events_rebuilt: expect.any(Number) });
  });

  it('$0.40 per turn with a $1 budget stops with reason budget after the third turn and starts no fourth', async () => {
    const played = script({ costUsd: 0.4 });
    const sessionInput = input('spend money', { maxCostUsd: 1, maxIterations: 10 });
    const result = await (await startGoalSession(client, sessionInput)).result();
    expect(result.stop.kind).toBe('budget');
    expect(result.iterations).toBe(3);
    expect(played.turns.map((t) => t.iteration)).toEqual([1, 2, 3]);
    // The third turn was given the $0.20 left, made its $0.40 call all the same, and reported the real cost.
    expect(result.usage.cost_usd).toBeCloseTo(1.2);
  });
});
