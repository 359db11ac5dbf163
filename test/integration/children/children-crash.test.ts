import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import { readJsonIfExists } from '../../../src/session/json-file';
import { childrenFileSchema, type ChildRecord } from '../../../src/session/schemas';
import { scriptFakeClaude } from '../../support/fake-claude';
import {
  fakeRuns,
  liveGroup,
  recoveryConfig,
  recoveryConfigObject,
  sessionState,
  waitFor,
} from '../../support/recovery';
import { testClient, testServer, uniqueQueue } from '../../support/temporal';
import { assertFreshBuild, spawnWorkerProcess, type WorkerProcess } from '../../support/worker-processes';

const HEARTBEAT_TIMEOUT_MS = 5000;
const HOST = 'childcrash';

const children = (dir: string): ChildRecord[] =>
  readJsonIfExists(join(dir, 'children.json'), childrenFileSchema)?.children ?? [];
const childDir = (parentDir: string, rec: ChildRecord | undefined) => {
  if (!rec?.session_id) throw new Error(`no child session in ${JSON.stringify(rec)}`);
  return join(parentDir, 'children', rec.session_id);
};

describe('child sessions survive kill -9 of the worker', () => {
  let client: Client;
  let connection: Connection;
  const workers: WorkerProcess[] = [];
  const orphanPids: number[] = [];

  beforeAll(async () => {
    assertFreshBuild();
    assertFreshBuild(['src/activities/child-requests.ts', 'src/activities/index.ts']);
    ({ client, connection } = await testClient());
  });
  afterAll(async () => {
    for (const w of workers.splice(0)) {
      w.kill('SIGKILL');
      await w.exited;
    }
    for (const pid of orphanPids.splice(0)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await connection.close();
  });

  it('kill -9 while a grandchild iteration runs: the tree finishes and every ledger adds up', async () => {
    const fake = scriptFakeClaude({
      sessions: [
        {
          goal_contains: 'CRASH leaf',
          turns: [{ sleep_ms: 120_000, spawn_grandchild_sleep_ms: 120_000, cost_usd: 1 }],
          default: { cost_usd: 0.25 },
        },
        {
          goal_contains: 'CRASH mid',
          turns: [
            {
              cost_usd: 0.125,
              child_requests: { 'leaf.json': { goal: 'CRASH leaf work', max_iterations: 2 } },
            },
          ],
          default: { cost_usd: 0.125 },
        },
        {
          goal_contains: 'CRASH root',
          turns: [
            {
              cost_usd: 0.0625,
              child_requests: { 'mid.json': { goal: 'CRASH mid work', max_iterations: 2 } },
            },
          ],
          default: { cost_usd: 0.0625 },
        },
      ],
    });
    const taskQueue = uniqueQueue('childcrash');
    const options = { taskQueue, hostId: HOST, heartbeatTimeout: `${HEARTBEAT_TIMEOUT_MS}ms` };
    const worker = () => {
      const w = spawnWorkerProcess({
        address: testServer().address,
        taskQueue,
        hostId: HOST,
        bundlePath: testServer().bundlePath,
        config: recoveryConfigObject(options),
      });
      workers.push(w);
      return w;
    };
    const input = buildSessionInput(recoveryConfig(options), {
      goal: 'CRASH root',
      cwd: mkdtempSync(join(tmpdir(), 'loopy-childcrash-')),
      harness: 'claude',
      maxIterations: 2,
    });

    const first = worker();
    await first.ready;
    const handle = await startGoalSession(client, input);
    const leafRun = await waitFor(
      () => fakeRuns(fake.stateDir).find((r) => (r.iteration_dir ?? '').split('/children/').length === 3),
      60_000,
      'the grandchild session turn',
    );
    orphanPids.push(leafRun.pgid);
    const tool = Number(
      await waitFor(
        () => {
          const f = join(fake.stateDir, `grandchild-${leafRun.n}.pid`);
          return existsSync(f) && readFileSync(f, 'utf8');
        },
        10_000,
        'the tool process',
      ),
    );

    first.kill('SIGKILL');
    await first.exited;
    // orphaned by the crash: the supervisor, the harness and its tool
    expect(liveGroup(leafRun.pgid).sort()).toEqual([leafRun.pgid, leafRun.pid, tool].sort());
    const second = worker();
    await second.ready;

    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    expect(liveGroup(leafRun.pgid)).toEqual([]);

    const [midRec] = children(input.sessionDir);
    const mid = childDir(input.sessionDir, midRec);
    const [leafRec] = children(mid);
    const leaf = childDir(mid, leafRec);
    expect([midRec?.status, leafRec?.status]).toEqual(['complete', 'complete']);
    expect(children(input.sessionDir)).toHaveLength(1);
    expect(children(mid)).toHaveLength(1);

    const leafState = sessionState(leaf);
    expect(leafState?.history.map((h) => h.iteration)).toEqual([1, 2]);
    expect(leafState?.history[0]).toMatchObject({ success: false, usage: null });
    expect(leafState?.history[0]?.error).toMatch(/^abandoned/);
    // The interrupted turn reported no cost: the ledgers hold what the recorded turns spent, once each.
    expect(leafState?.usage.total.cost_usd).toBeCloseTo(0.25);
    expect(leafRec?.usage?.cost_usd).toBeCloseTo(0.25);
    const midState = sessionState(mid);
    expect(midState?.usage.own.cost_usd).toBeCloseTo(0.25);
    expect(midState?.usage.total.cost_usd).toBeCloseTo(0.5);
    expect(midRec?.usage?.cost_usd).toBeCloseTo(0.5);
    const rootState = sessionState(input.sessionDir);
    expect(rootState?.usage.own.cost_usd).toBeCloseTo(0.125);
    expect(rootState?.usage.total.cost_usd).toBeCloseTo(0.625);
    expect(result.usage.cost_usd).toBeCloseTo(0.625);
    expect(rootState?.active_child_session_id).toBeNull();
    expect(midState?.active_child_session_id).toBeNull();
  });
});
