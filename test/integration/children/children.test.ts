import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection, WorkflowHandle } from '@temporalio/client';
import { buildSessionInput } from '../../../src/cli/session-input';
import { loadSessionTree, renderSessionTree } from '../../../src/cli/session-tree';
import { startGoalSession } from '../../../src/cli/start-session';
import { isProcessGroupAlive } from '../../../src/harness/process';
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
} from '../../../src/workflows/goal-session-messages';
import { FAKE_CLAUDE, scriptFakeClaude } from '../../support/fake-claude';
import { startTestWorker, testClient, testConfig, type TestWorker } from '../../support/temporal';

const children = (dir: string): ChildRecord[] =>
  readJsonIfExists(join(dir, 'children.json'), childrenFileSchema)?.children ?? [];
const stateOf = (dir: string): SessionStateFile =>
  readJsonFile(join(dir, 'state.json'), sessionStateFileSchema);
const childDir = (parentDir: string, rec: ChildRecord | undefined): string => {
  if (!rec?.session_id) throw new Error(`no child session in ${JSON.stringify(rec)}`);
  return join(parentDir, 'children', rec.session_id);
};
const events = (dir: string) => readJsonl(join(dir, 'events.jsonl'), sessionEventSchema);

type Maybe<T> = T | null | undefined | false;
async function waitFor<T>(
  what: string,
  probe: () => Maybe<T> | Promise<Maybe<T>>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface RunRecord {
  pid: number;
  /** The run's process group, led by the harness's supervisor. */
  pgid: number;
  session_dir: string | null;
}
const runsOf = (stateDir: string): RunRecord[] => {
  const file = join(stateDir, 'runs.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunRecord);
};

describe('child sessions on the real dev server with the fake claude', () => {
  let client: Client;
  let connection: Connection;
  let worker: TestWorker;
  const config = testConfig({
    harness: { claude: { command: FAKE_CLAUDE } },
    worker: { heartbeatTimeout: '10s' },
  });

  beforeAll(async () => {
    ({ client, connection } = await testClient());
    worker = await startTestWorker({
      config: { ...config, temporal: { ...config.temporal, taskQueue: `children-${Date.now()}` } },
    });
  });
  afterAll(async () => {
    await worker.shutdown();
    await connection.close();
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
    scriptFakeClaude({
      sessions: [
        { goal_contains: 'child A', default: { cost_usd: 0.125 } },
        { goal_contains: 'child B', default: { cost_usd: 0.25 } },
        {
          goal_contains: 'ROOT two children',
          turns: [
            {
              cost_usd: 0.0625,
              child_requests: {
                'a.json': { goal: 'child A: write a.txt', max_iterations: 2 },
                'b.json': { goal: 'child B: write b.txt', max_iterations: 1 },
              },
            },
          ],
          default: { cost_usd: 0.0625 },
        },
      ],
    });
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
    expect(state.usage.total.num_turns).toBe(2 + 2 + 1);
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
    scriptFakeClaude({
      sessions: [
        { goal_contains: 'child one', default: { cost_usd: 0.25 } },
        { goal_contains: 'child two', default: { cost_usd: 0.5 } },
        {
          goal_contains: 'ROOT continued',
          turns: [
            { child_requests: { 'one.json': { goal: 'child one', max_iterations: 1 } } },
            {},
            {},
            {},
            { child_requests: { 'two.json': { goal: 'child two', max_iterations: 1 } } },
          ],
          default: {},
        },
      ],
    });
    const root = { ...input('ROOT continued', { maxIterations: 7 }), continueAsNewAfterEvents: 30 };
    const handle = await startGoalSession(client, root);
    const result = await handle.result();
    expect(result.iterations).toBe(7);
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
    scriptFakeClaude({
      sessions: [
        { goal_contains: 'greedy child', default: { cost_usd: 0.5, respect_max_budget: true } },
        {
          goal_contains: 'ROOT budget',
          turns: [
            {
              cost_usd: 0.25,
              respect_max_budget: true,
              child_requests: { 'greedy.json': { goal: 'greedy child', max_cost_usd: 5 } },
            },
          ],
          default: { cost_usd: 0.25, respect_max_budget: true },
        },
      ],
    });
    const root = input('ROOT budget', { maxCostUsd: 1, maxIterations: 10 });
    const result = await (await startGoalSession(client, root)).result();
    const [rec] = children(root.sessionDir);
    expect(rec?.max_cost_usd).toBeCloseTo(0.75);
    expect(rec?.reason).toMatch(/capped at \$0\.75/);
    expect(rec?.status).toBe('complete');
    expect(rec?.outcome).toMatch(/^budget: /);
    const child = stateOf(childDir(root.sessionDir, rec));
    expect(child.stop.kind).toBe('budget');
    expect(child.usage.total.cost_usd).toBeLessThanOrEqual(0.75 + 1e-9);
    expect(rec?.usage?.cost_usd).toBeCloseTo(0.75);

    expect(result.stop.kind).toBe('budget');
    expect(result.iterations).toBe(1);
    expect(result.usage.cost_usd).toBeCloseTo(1);
    expect(result.usage.cost_usd).toBeLessThanOrEqual(1 + 1e-9);
    const dispatched = events(root.sessionDir).find((e) => e.type === 'child_dispatched');
    expect(dispatched?.data).toMatchObject({ max_cost_usd: 0.75, requested_max_cost_usd: 5 });
  });

  it('depth 3: a grandchild works and rolls up into both ancestors; the tree renders', async () => {
    scriptFakeClaude({
      sessions: [
        { goal_contains: 'LEAF level', default: { cost_usd: 0.25 } },
        {
          goal_contains: 'MID level',
          turns: [
            {
              cost_usd: 0.125,
              child_requests: { 'leaf.json': { goal: 'LEAF level work', max_iterations: 2 } },
            },
          ],
          default: { cost_usd: 0.125 },
        },
        {
          goal_contains: 'ROOT deep',
          turns: [
            {
              cost_usd: 0.0625,
              child_requests: { 'mid.json': { goal: 'MID level work', max_iterations: 2 } },
            },
          ],
          default: { cost_usd: 0.0625 },
        },
      ],
    });
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
    '$how on the parent ends the running child and grandchild long before their ten-minute turns would end, each with its final state, and no harness process survives',
    async ({ stop, expected, childKinds }) => {
      const fake = scriptFakeClaude({
        sessions: [
          { goal_contains: 'STOPLEAF', default: { sleep_ms: 600_000, spawn_grandchild_sleep_ms: 600_000 } },
          {
            goal_contains: 'STOPMID',
            turns: [{ child_requests: { 'leaf.json': { goal: 'STOPLEAF forever' } } }],
            default: { sleep_ms: 600_000 },
          },
          {
            goal_contains: 'ROOT stop',
            turns: [{ child_requests: { 'mid.json': { goal: 'STOPMID forever' } } }],
            default: { sleep_ms: 600_000 },
          },
        ],
      });
      const root = input('ROOT stop', { maxIterations: 5 });
      const handle = await startGoalSession(client, root);
      const leafRun = await waitFor('the grandchild turn', () =>
        runsOf(fake.stateDir).find(
          (r) => r.session_dir?.includes('/children/') && r.session_dir.split('/children/').length === 3,
        ),
      );
      const [midRec] = children(root.sessionDir);
      const mid = childDir(root.sessionDir, midRec);
      const [leafRec] = children(mid);
      expect(stateOf(root.sessionDir).active_child_session_id).toBe(midRec?.session_id);
      expect(stateOf(mid).active_child_session_id).toBe(leafRec?.session_id);
      const grandchildPid = Number(
        await waitFor('the tool process', () => {
          const files = existsSync(fake.stateDir)
            ? readdirSync(fake.stateDir).filter((f) => f.startsWith('grandchild-'))
            : [];
          return files[0] ? readFileSync(join(fake.stateDir, files[0]), 'utf8') : null;
        }),
      );

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
      for (const run of runsOf(fake.stateDir)) expect(isProcessGroupAlive(run.pgid)).toBe(false);
      expect(leafRun.pgid).toBeGreaterThan(0);
      expect(isProcessGroupAlive(grandchildPid)).toBe(false);
    },
  );

  it('a malformed request is reported in children.json and the parent goes on', async () => {
    const root = input('ROOT malformed', { maxIterations: 2 });
    const inbox = join(root.sessionDir, 'child_requests');
    scriptFakeClaude({
      sessions: [
        { goal_contains: 'fine child', default: { cost_usd: 0.125 } },
        {
          goal_contains: 'ROOT malformed',
          turns: [
            {
              write_files: {
                [join(inbox, 'broken.json')]: '{"goal": "half',
                [join(inbox, 'notes.txt')]: 'not a request',
              },
              child_requests: {
                'extra.json': { goal: 'x', budget: 3 },
                'empty.json': { goal: '   ' },
                'fine.json': { goal: 'fine child', max_iterations: 1 },
              },
            },
          ],
          default: {},
        },
      ],
    });
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
    scriptFakeClaude({
      sessions: [
        {
          // While child one runs, its turn rewrites the parent's job.json: nothing is dispatched until it ends.
          goal_contains: 'REUSE one',
          default: {
            sleep_ms: 300,
            write_files: { [job]: JSON.stringify({ goal: 'REUSE two', max_iterations: 1 }) },
          },
        },
        { goal_contains: 'REUSE two', default: {} },
        { goal_contains: 'REUSE three', default: {} },
        {
          goal_contains: 'ROOT reuse',
          turns: [
            { child_requests: { 'job.json': { goal: 'REUSE one', max_iterations: 1 } } },
            {},
            { child_requests: { 'job.json': { goal: 'REUSE three', max_iterations: 1 } } },
            {},
          ],
        },
      ],
    });
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
    scriptFakeClaude({
      sessions: [
        { goal_contains: 'PAUSED child', default: { sleep_ms: 500 } },
        {
          goal_contains: 'ROOT pause',
          turns: [{ child_requests: { 'p.json': { goal: 'PAUSED child', max_iterations: 3 } } }],
        },
      ],
    });
    const root = input('ROOT pause', { maxIterations: 1 });
    const handle = await startGoalSession(client, root);
    const rec = await waitFor('the child running', () =>
      children(root.sessionDir).find((r) => r.status === 'running'),
    );
    await handle.signal(pauseSignal);
    const child = client.workflow.getHandle(rec.session_id ?? '');
    await waitFor('the child paused', async () => (await child.query(statusQuery)).status === 'paused');
    await new Promise((r) => setTimeout(r, 800));
    const pausedAt = (await child.query(statusQuery)).iteration;
    expect(pausedAt).toBeLessThan(3);
    await handle.signal(resumeSignal);
    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    expect(children(root.sessionDir)[0]?.status).toBe('complete');
    expect(stateOf(childDir(root.sessionDir, rec)).iteration).toBe(3);
  });
});
