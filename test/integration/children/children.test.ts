import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection, WorkflowHandle } from '@temporalio/client';
import { buildSessionInput } from '../../../src/cli/session-input';
import { loadSessionTree, renderSessionTree } from '../../../src/cli/session-tree';
import { startGoalSession } from '../../../src/cli/start-session';
import { isProcessGroupAlive } from '../../../src/harness/process-group';
import { readJsonFile, readJsonIfExists } from '../../../src/session/json-file';
import { readJsonl } from '../../../src/session/jsonl';
import {
  childrenFileSchema,
  sessionEventSchema,
  sessionFileSchema,
  sessionStateFileSchema,
  type ChildRecord,
  type SessionStateFile,
} from '../../../src/session/schemas';
import {
  pauseSignal,
  resumeSignal,
  statusQuery,
  stopSignal,
} from '../../../src/workflows/goal-session/messages';
import {
  claudeEnv,
  realClaudeBin,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import { after, bySession, forever, scriptGoalLoops, type SessionScript } from '../../support/scripted-agent';
import { processesOfSession } from '../../support/session-processes';
import { startTestWorker, testClient, testConfig, type TestWorker } from '../../support/temporal';
import { staysTrue, waitFor } from '../../support/wait';

const children = (dir: string): ChildRecord[] =>
  readJsonIfExists(join(dir, 'children.json'), childrenFileSchema)?.children ?? [];
const stateOf = (dir: string): SessionStateFile =>
  readJsonFile(join(dir, 'state.json'), sessionStateFileSchema);
const childDir = (parentDir: string, rec: ChildRecord | undefined): string => {
  if (!rec?.session_id) throw new Error(`no child session in ${JSON.stringify(rec)}`);
  return join(parentDir, 'children', rec.session_id);
};
const events = (dir: string) => readJsonl(join(dir, 'events.jsonl'), sessionEventSchema);

/**
 * Child sessions driven by the REAL claude CLI against the mock Anthropic API: the model's turns (scripted per session
 * by goal and iteration) write child requests and control.json with the CLI's own Write tool, and cost what their
 * token usage costs at the CLI's prices. The worker runs in this process, so the harness inherits this process's
 * environment: the mock's URL, a dummy key and a scratch HOME that allows Bash (the stop tests run a shell command).
 */
describe('child sessions on the real dev server with the real claude', () => {
  let client: Client;
  let connection: Connection;
  let worker: TestWorker;
  let mock: MockAnthropic;
  const saved = { ...process.env };
  const config = testConfig({
    harness: { claude: { command: realClaudeBin() } },
    worker: { heartbeatTimeout: '10s' },
  });
  const script = (sessions: SessionScript[]) => scriptGoalLoops(mock, bySession(sessions));

  beforeAll(async () => {
    mock = await startMockAnthropic();
    Object.assign(process.env, claudeEnv(mock, { allowedTools: ['Bash'] }).env);
    ({ client, connection } = await testClient());
    worker = await startTestWorker({
      config: { ...config, temporal: { ...config.temporal, taskQueue: `children-${Date.now()}` } },
    });
  });
  afterAll(async () => {
    await worker.shutdown();
    await connection.close();
    await mock.close();
    process.env = saved;
  });

  function input(goal: string, extra: Partial<Parameters<typeof buildSessionInput>[1]> = {}) {
    const cwd = mkdtempSync(join(tmpdir(), 'loopy-children-'));
    return buildSessionInput(
      {
        ...config,
        temporal: { ...config.temporal, taskQueue: worker.taskQueue },
        worker: { ...config.worker, hostId: 'testhost' },
      },
      { goal, cwd, harness: 'claude', ...extra },
    );
  }

  it('a first turn that requests two children runs both; children.json has both complete with usage; totals = own + subtree', async () => {
    script([
      { goalContains: 'child A', default: { costUsd: 0.125 } },
      { goalContains: 'child B', default: { costUsd: 0.25 } },
      {
        goalContains: 'ROOT two children',
        turns: [
          {
            costUsd: 0.0625,
            childRequests: {
              'a.json': { goal: 'child A: write a.txt', max_iterations: 2 },
              'b.json': { goal: 'child B: write b.txt', max_iterations: 1 },
            },
          },
        ],
        default: { costUsd: 0.0625 },
      },
    ]);
    const root = input('ROOT two children', { maxIterations: 2 });
    const result = await (await startGoalSession(client, root)).result();
    expect(result.stop.kind).toBe('max_iterations');

    const recs = children(root.sessionDir);
    expect(recs.map((r) => [r.request_file, r.status])).toEqual([
      ['a.json', 'complete'],
      ['b.json', 'complete'],
    ]);
    expect(recs[0]?.usage?.cost_usd).toBeCloseTo(0.25);
    expect(recs[1]?.usage?.cost_usd).toBeCloseTo(0.25);
    expect(recs[0]?.outcome).toBe('max iterations: ran 2 of 2');

    const state = stateOf(root.sessionDir);
    expect(state.usage.own.cost_usd).toBeCloseTo(0.125);
    expect(state.usage.children.cost_usd).toBeCloseTo(0.5);
    expect(state.usage.total.cost_usd).toBeCloseTo(0.625);
    // num_turns is the CLI's own count (model calls and tool rounds): the total is every turn's count in the tree.
    const turnsOf = (dir: string) => stateOf(dir).history.reduce((n, h) => n + (h.usage?.num_turns ?? 0), 0);
    const [aDir, bDir] = recs.map((r) => childDir(root.sessionDir, r));
    expect(state.usage.total.num_turns).toBe(
      turnsOf(root.sessionDir) + turnsOf(aDir ?? '') + turnsOf(bDir ?? ''),
    );
    expect(state.usage.total.num_turns).toBeGreaterThanOrEqual(2 + 2 + 1);
    expect(result.usage.cost_usd).toBeCloseTo(0.625);
    expect(state.active_child_session_id).toBeNull();

    // Each child has its own complete session directory with its own goal.md.
    const a = childDir(root.sessionDir, recs[0]);
    expect(readFileSync(join(a, 'goal.md'), 'utf8')).toBe('child A: write a.txt\n');
    const aSession = readJsonFile(join(a, 'session.json'), sessionFileSchema);
    expect(aSession.parent_session_id).toBe(root.sessionId);
    expect(aSession.session_id).toBe(recs[0]?.session_id);
    expect(stateOf(a).history).toHaveLength(2);
    for (const f of ['control.json', 'events.jsonl', 'children.json', 'updates_from_user.md', 'iterations']) {
      expect(existsSync(join(a, f))).toBe(true);
    }

    // One child at a time, and the parent waits: B starts after A ended, the parent's 2nd turn after B.
    expect(Date.parse(recs[1]?.started_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(recs[0]?.finished_at ?? ''),
    );
    expect(Date.parse(state.history[1]?.started_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(recs[1]?.finished_at ?? ''),
    );
    const types = events(root.sessionDir).map((e) => e.type);
    expect(types.filter((t) => t.startsWith('child_'))).toEqual([
      'child_dispatched',
      'child_finished',
      'child_dispatched',
      'child_finished',
    ]);

    // The Web UI's parent/child link: the child workflow records its parent.
    const described = await client.workflow.getHandle(recs[0]?.session_id ?? '').describe();
    expect(described.parentExecution?.workflowId).toBe(root.sessionId);
  });

  it('a parent that continues as new keeps its children.json, its usage ledger and the request it already handled', async () => {
    script([
      { goalContains: 'child one', default: { costUsd: 0.25 } },
      { goalContains: 'child two', default: { costUsd: 0.5 } },
      {
        goalContains: 'ROOT continued',
        turns: [
          { childRequests: { 'one.json': { goal: 'child one', max_iterations: 1 } } },
          {},
          { childRequests: { 'two.json': { goal: 'child two', max_iterations: 1 } } },
        ],
        default: {},
      },
    ]);
    // Few turns (each starts the real CLI): a low threshold makes the parent continue as new after its first child.
    const root = { ...input('ROOT continued', { maxIterations: 3 }), continueAsNewAfterEvents: 20 };
    const handle = await startGoalSession(client, root);
    const result = await handle.result();
    expect(result.iterations).toBe(3);
    const first = await client.workflow.getHandle(root.sessionId, handle.firstExecutionRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
    // one.json stays in child_requests/ and was seen again after the continue-as-new: it ran once.
    expect(children(root.sessionDir).map((r) => [r.request_file, r.status])).toEqual([
      ['one.json', 'complete'],
      ['two.json', 'complete'],
    ]);
    expect(stateOf(root.sessionDir).usage.children.cost_usd).toBeCloseTo(0.75);
    expect(result.usage.cost_usd).toBeCloseTo(0.75);
  });

  it('budget: a child asking $5 of a $1 parent is capped at what is left, stops with budget, and the parent stops with budget', async () => {
    script([
      { goalContains: 'greedy child', default: { costUsd: 0.5 } },
      {
        goalContains: 'ROOT budget',
        turns: [
          {
            costUsd: 0.25,
            childRequests: { 'greedy.json': { goal: 'greedy child', max_cost_usd: 5 } },
          },
        ],
        default: { costUsd: 0.25 },
      },
    ]);
    const root = input('ROOT budget', { maxCostUsd: 1, maxIterations: 10 });
    const result = await (await startGoalSession(client, root)).result();
    const [rec] = children(root.sessionDir);
    expect(rec?.max_cost_usd).toBeCloseTo(0.75);
    expect(rec?.reason).toMatch(/capped at \$0\.75/);
    expect(rec?.status).toBe('complete');
    expect(rec?.outcome).toMatch(/^budget: /);
    // The real CLI is given what is left and makes its call all the same (--max-budget-usd is no hard cap): the
    // child's second $0.50 turn, given $0.25, goes over and is recorded at its real cost.
    const child = stateOf(childDir(root.sessionDir, rec));
    expect(child.stop).toMatchObject({
      kind: 'budget',
      reason: 'budget: spent $1.00 of $0.75; the last call went over',
    });
    expect(child.history.map((h) => h.success)).toEqual([true, false]);
    expect(child.usage.total.cost_usd).toBeCloseTo(1);
    expect(rec?.usage?.cost_usd).toBeCloseTo(1);

    // The parent's own $0.25 and its child's $1.00: over its $1, so it stops with budget after its first turn.
    expect(result.stop.kind).toBe('budget');
    expect(result.iterations).toBe(1);
    expect(result.usage.cost_usd).toBeCloseTo(1.25);
    expect(stateOf(root.sessionDir).stop.reason).toBe(
      'budget: spent $1.25 of $1.00; the last call went over',
    );
    const dispatched = events(root.sessionDir).find((e) => e.type === 'child_dispatched');
    expect(dispatched?.data).toMatchObject({ max_cost_usd: 0.75, requested_max_cost_usd: 5 });
  });

  it('depth 3: a grandchild works and rolls up into both ancestors; the tree renders', async () => {
    script([
      { goalContains: 'LEAF level', default: { costUsd: 0.25 } },
      {
        goalContains: 'MID level',
        turns: [
          {
            costUsd: 0.125,
            childRequests: { 'leaf.json': { goal: 'LEAF level work', max_iterations: 2 } },
          },
        ],
        default: { costUsd: 0.125 },
      },
      {
        goalContains: 'ROOT deep',
        turns: [
          {
            costUsd: 0.0625,
            childRequests: { 'mid.json': { goal: 'MID level work', max_iterations: 2 } },
          },
        ],
        default: { costUsd: 0.0625 },
      },
    ]);
    const root = input('ROOT deep', { maxIterations: 2 });
    const result = await (await startGoalSession(client, root)).result();
    expect(result.stop.kind).toBe('max_iterations');

    const [midRec] = children(root.sessionDir);
    const mid = childDir(root.sessionDir, midRec);
    const [leafRec] = children(mid);
    const leaf = childDir(mid, leafRec);
    expect(leaf).toBe(
      join(root.sessionDir, 'children', midRec?.session_id ?? '', 'children', leafRec?.session_id ?? ''),
    );
    expect(leafRec?.status).toBe('complete');
    expect(leafRec?.usage?.cost_usd).toBeCloseTo(0.5);
    expect(stateOf(leaf).usage.total.cost_usd).toBeCloseTo(0.5);
    expect(stateOf(mid).usage).toMatchObject({
      own: { cost_usd: 0.25 },
      children: { cost_usd: 0.5 },
      total: { cost_usd: 0.75 },
    });
    expect(midRec?.usage?.cost_usd).toBeCloseTo(0.75);
    expect(stateOf(root.sessionDir).usage).toMatchObject({
      own: { cost_usd: 0.125 },
      children: { cost_usd: 0.75 },
      total: { cost_usd: 0.875 },
    });
    expect(readJsonFile(join(leaf, 'session.json'), sessionFileSchema).parent_session_id).toBe(
      midRec?.session_id,
    );

    const tree = loadSessionTree(root.sessionDir);
    expect(tree.children[0]?.children[0]?.sessionId).toBe(leafRec?.session_id);
    const text = renderSessionTree(tree);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain(root.sessionId);
    expect(lines[0]).toContain('$0.88 (own $0.13 + children $0.75)');
    expect(lines[1]).toMatch(
      new RegExp(
        `^└─ mid\\.json → ${midRec?.session_id}  complete \\(max iterations: ran 2 of 2\\)  ·  2 iterations  ·  \\$0\\.75 \\(own \\$0\\.25 \\+ children \\$0\\.50\\)$`,
      ),
    );
    expect(lines[2]).toMatch(new RegExp(`^   └─ leaf\\.json → ${leafRec?.session_id}  complete .*\\$0\\.50`));
  });

  it.each([
    {
      how: 'a stop signal',
      stop: (h: WorkflowHandle) => h.signal(stopSignal, { reason: 'enough', by: 'test' }),
      expected: { kind: 'user', reason: 'enough' },
      childKinds: ['parent'],
    },
    {
      how: 'a cancellation through Temporal',
      stop: (h: WorkflowHandle) => h.cancel(),
      expected: { kind: 'user', reason: 'cancelled through Temporal (a workflow cancellation request)' },
      // The parent's stop signal, or Temporal's cancellation of the child, whichever reaches it first.
      childKinds: ['parent', 'user'],
    },
  ])(
    '$how on the parent ends the running child and grandchild long before their ten-minute turns would end, each with its final state, and no harness or tool process survives',
    async ({ stop, expected, childKinds }) => {
      const root = input('ROOT stop', { maxIterations: 5 });
      // The grandchild's turn runs a ten-minute shell command through the Bash tool and records the shell's pid.
      const toolPidFile = join(root.cwd, `tool-${expected.reason.length}.pid`);
      script([
        {
          goalContains: 'STOPLEAF',
          default: {
            bash: `echo $$ > ${toolPidFile}.tmp && mv ${toolPidFile}.tmp ${toolPidFile} && sleep 600`,
          },
        },
        {
          goalContains: 'STOPMID',
          turns: [{ childRequests: { 'leaf.json': { goal: 'STOPLEAF forever' } } }],
          default: { until: forever },
        },
        {
          goalContains: 'ROOT stop',
          turns: [{ childRequests: { 'mid.json': { goal: 'STOPMID forever' } } }],
          default: { until: forever },
        },
      ]);
      const handle = await startGoalSession(client, root);
      const toolPid = Number(
        await waitFor(
          'the tool process of the grandchild turn',
          () => existsSync(toolPidFile) && readFileSync(toolPidFile, 'utf8').trim(),
          120_000,
        ),
      );
      const [midRec] = children(root.sessionDir);
      const mid = childDir(root.sessionDir, midRec);
      const [leafRec] = children(mid);
      expect(stateOf(root.sessionDir).active_child_session_id).toBe(midRec?.session_id);
      expect(stateOf(mid).active_child_session_id).toBe(leafRec?.session_id);
      expect(isProcessGroupAlive(toolPid)).toBe(true);

      // every turn would run ten minutes: a result within the test's timeout can only come from the stop
      await stop(handle);
      const result = await handle.result();
      expect(result.stop).toEqual(expected);

      for (const id of [midRec?.session_id, leafRec?.session_id]) {
        const d = await client.workflow.getHandle(id ?? '').describe();
        expect(d.status.name).toBe('COMPLETED');
      }
      for (const dir of [mid, childDir(mid, leafRec)]) {
        const final = readJsonIfExists(join(dir, 'state.json'), sessionStateFileSchema);
        expect(final?.status).toBe('stopped');
        expect(childKinds).toContain(final?.stop.kind);
      }
      expect(children(root.sessionDir)[0]?.status).toBe('stopped');
      expect(children(mid)[0]?.status).toBe('stopped');
      // The real claude runs a Bash command in a process group of its own: it must end with the turn all the same.
      expect(isProcessGroupAlive(toolPid)).toBe(false);
      expect(processesOfSession(root.sessionDir)).toEqual([]);
    },
  );

  it('a malformed request is reported in children.json and the parent goes on', async () => {
    const root = input('ROOT malformed', { maxIterations: 2 });
    const inbox = join(root.sessionDir, 'child_requests');
    script([
      { goalContains: 'fine child', default: { costUsd: 0.125 } },
      {
        goalContains: 'ROOT malformed',
        turns: [
          {
            writeFiles: {
              [join(inbox, 'broken.json')]: '{"goal": "half',
              [join(inbox, 'notes.txt')]: 'not a request',
            },
            childRequests: {
              'extra.json': { goal: 'x', budget: 3 },
              'empty.json': { goal: '   ' },
              'fine.json': { goal: 'fine child', max_iterations: 1 },
            },
          },
        ],
        default: {},
      },
    ]);
    const result = await (await startGoalSession(client, root)).result();
    expect(result.stop.kind).toBe('max_iterations');
    expect(result.iterations).toBe(2);
    const recs = children(root.sessionDir);
    expect(recs.map((r) => [r.request_file, r.status])).toEqual([
      ['broken.json', 'rejected'],
      ['empty.json', 'rejected'],
      ['extra.json', 'rejected'],
      ['fine.json', 'complete'],
    ]);
    expect(recs[0]?.reason).toMatch(/^not valid JSON/);
    expect(recs[1]?.reason).toMatch(/^goal: /);
    expect(recs[2]?.reason).toMatch(/budget/);
    expect(recs.filter((r) => r.status === 'rejected').every((r) => r.session_id === null)).toBe(true);
    expect(events(root.sessionDir).filter((e) => e.type === 'child_rejected')).toHaveLength(3);
    // A rejected file that is not touched again is not reported again.
    expect(stateOf(root.sessionDir).usage.children.cost_usd).toBeCloseTo(0.125);
  });

  it('a request file name is reused after its child completed; a rewrite while the child runs waits for it', async () => {
    const root = input('ROOT reuse', { maxIterations: 4 });
    const job = join(root.sessionDir, 'child_requests', 'job.json');
    script([
      {
        // While child one runs, its turn rewrites the parent's job.json: nothing is dispatched until it ends.
        goalContains: 'REUSE one',
        default: {
          until: after(300),
          writeFiles: { [job]: { goal: 'REUSE two', max_iterations: 1 } },
        },
      },
      { goalContains: 'REUSE two', default: {} },
      { goalContains: 'REUSE three', default: {} },
      {
        goalContains: 'ROOT reuse',
        turns: [
          { childRequests: { 'job.json': { goal: 'REUSE one', max_iterations: 1 } } },
          {},
          { childRequests: { 'job.json': { goal: 'REUSE three', max_iterations: 1 } } },
          {},
        ],
      },
    ]);
    const handle = await startGoalSession(client, root);
    await waitFor('child one running', () => children(root.sessionDir).some((r) => r.status === 'running'));
    await waitFor('the rewrite', () => readFileSync(job, 'utf8').includes('REUSE two'));
    expect(children(root.sessionDir).filter((r) => r.request_file === 'job.json')).toHaveLength(1);
    const result = await handle.result();
    expect(result.iterations).toBe(4);

    const recs = children(root.sessionDir);
    expect(recs.map((r) => [r.request_file, r.status])).toEqual([
      ['job.json', 'complete'],
      ['job.json', 'complete'],
      ['job.json', 'complete'],
    ]);
    const goals = recs.map((r) => readFileSync(join(childDir(root.sessionDir, r), 'goal.md'), 'utf8').trim());
    expect(goals).toEqual(['REUSE one', 'REUSE two', 'REUSE three']);
    expect(new Set(recs.map((r) => r.session_id)).size).toBe(3);
    const history = stateOf(root.sessionDir).history;
    // two was dispatched after the parent's 2nd turn (the rewrite happened while one ran), three after the 3rd.
    expect(Date.parse(recs[1]?.started_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(recs[0]?.finished_at ?? ''),
    );
    expect(Date.parse(recs[1]?.started_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(history[1]?.finished_at ?? ''),
    );
    expect(Date.parse(recs[2]?.started_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(history[2]?.finished_at ?? ''),
    );
  });

  it('pause and resume on the parent reach its active child', async () => {
    script([
      { goalContains: 'PAUSED child', default: { until: after(500) } },
      {
        goalContains: 'ROOT pause',
        turns: [{ childRequests: { 'p.json': { goal: 'PAUSED child', max_iterations: 3 } } }],
      },
    ]);
    const root = input('ROOT pause', { maxIterations: 1 });
    const handle = await startGoalSession(client, root);
    const rec = await waitFor('the child running', () =>
      children(root.sessionDir).find((r) => r.status === 'running'),
    );
    await handle.signal(pauseSignal);
    const child = client.workflow.getHandle(rec.session_id ?? '');
    await waitFor('the child paused', async () => (await child.query(statusQuery)).status === 'paused');
    await staysTrue(
      'the paused child before iteration 3',
      async () => (await child.query(statusQuery)).iteration < 3,
      800,
    );
    await handle.signal(resumeSignal);
    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    expect(children(root.sessionDir)[0]?.status).toBe('complete');
    expect(stateOf(childDir(root.sessionDir, rec)).iteration).toBe(3);
  });
});
