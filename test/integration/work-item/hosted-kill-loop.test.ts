import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { parse, stringify } from 'yaml';
import { addUsd } from '../../../src/pricing/money';
import { costOf, priceTable } from '../../../src/pricing/prices';
import { deliverToWorkItem, runningWorkItem } from '../../../src/temporal/work-items';
import { hookChannelDir } from '../../../src/worker/socket-dir';
import { hostQueueName } from '../../../src/workflows/goal-session/host-queue';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import { startMockAnthropic, type MockAnthropic } from '../../support/mock-anthropic';
import { testServer, uniqueQueue } from '../../support/temporal';
import { waitFor, queryAnswer } from '../../support/wait';
import { assertFreshBuild, spawnWorkerProcess, type WorkerProcess } from '../../support/worker-processes';
import { eventOfCall, setupRealClaudeEnv, workItemEvents, type WorkItemTestEnv } from './helpers';

jest.setTimeout(900_000);

const KEY = `sk-ant-api03-hosted-kill-${randomUUID()}`;
// Work-item workflow ids are server-wide and every suite shares the run's dev server: a number no other suite uses.
const ITEM = 'github:octo/repo#1931';
const QUEUE = uniqueQueue('hosted-kill');
const MODEL = 'claude-hosted-kill-test-1';
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const TURNS = 8;
const KILLS = 6;

/** A seeded random number in [0, 1): a failing run is replayed with its seed (HOSTED_KILL_SEED). */
function random(seed: number): () => number {
  let state = seed % 2147483647 || 1;
  return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

const tailOf = (file: string, lines: number) =>
  readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');

/** The activities a stuck workflow and its children wait on: what each is, its attempt and last failure. */
async function pendingWork(handle: WorkflowHandle | null): Promise<unknown[]> {
  if (!handle) return [];
  const { raw } = await handle.describe();
  const children = await Promise.all(
    (raw.pendingChildren ?? []).map((child) =>
      child.workflowId ? pendingWork(handle.client.getHandle(child.workflowId)) : [],
    ),
  );
  const activities = (raw.pendingActivities ?? []).map((a) => ({
    workflow: handle.workflowId,
    activity: a.activityType?.name,
    attempt: a.attempt,
    state: a.state,
    failure: a.lastFailure?.message,
  }));
  return [...activities, ...children.flat()];
}

/**
 * A kill -9 loop over a hosted session, with the REAL interactive Claude Code in tmux against the local mock: the
 * worker process that hosts it is killed at random moments of its turns (mid-turn, as one ends, while it is being
 * counted) and started again. Claude's pane outlives it; its hooks' reports wait in the spool. Nothing spent is
 * lost or counted twice: the work item's recorded cost equals what the mock served, priced.
 */
describe('a kill -9 loop over a hosted session', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;
  let worker: WorkerProcess | null = null;
  let raw: Record<string, unknown>;
  const seed = Number(process.env.HOSTED_KILL_SEED ?? Date.now() % 100_000);
  const next = random(seed);
  const queues = () => ({ taskQueue: QUEUE, hostQueue: hostQueueName(QUEUE, 'testhost') });

  async function startWorker(): Promise<void> {
    worker = spawnWorkerProcess({
      address: testServer().address,
      taskQueue: QUEUE,
      hostId: 'testhost',
      bundlePath: testServer().bundlePath,
      config: raw,
      // the hook channel's socket and spool are the worker's own; the records are the env's (state.root)
      stateDir: join(env.dir, 'worker-state'),
    });
    await worker.ready;
  }

  const logs: string[] = [];
  /** What a stuck loop shows: the session's status, its record, its pane and the workers' logs. */
  async function diagnose(error: unknown): Promise<never> {
    const handle = await runningWorkItem(env.client, ITEM);
    const status = await handle?.query(statusQuery).catch(String);
    const pending = await pendingWork(handle);
    const channelDir = hookChannelDir(join(env.dir, 'worker-state'));
    const panesDir = join(channelDir, 'panes');
    const panes = readdirSync(panesDir).map(
      (f) => `${f}: ${tailOf(join(panesDir, f), f.endsWith('.json') ? 60 : 10)}`,
    );
    // what the pane's hooks did: reports sent, spooled, or given up on
    const hookLogs = readdirSync(join(channelDir, 'logs')).map(
      (f) => `${f}: ${tailOf(join(channelDir, 'logs', f), 30)}`,
    );
    const events = workItemEvents(env, ITEM, 'event.delivered', 'event.failed', 'tmux.lost', 'turn.spent');
    throw new Error(
      [
        String(error),
        `seed ${seed}`,
        `status ${JSON.stringify(status)}`,
        `events ${JSON.stringify(events.map((e) => [e.type, e.data?.['iteration'] ?? e.data?.['event_id']]))}`,
        `pending ${JSON.stringify(pending)}`,
        `pane:\n${env
          .capture(ITEM)
          .split('\n')
          .filter((l) => l.trim())
          .slice(-80)
          .join('\n')}`,
        `panes:\n${panes.join('\n')}`,
        `hook logs:\n${hookLogs.join('\n')}`,
        ...[...logs, ...(worker ? [worker.logFile] : [])].map((f) => `log ${f}:\n${tailOf(f, 60)}`),
      ].join('\n'),
    );
  }

  async function killWorker(): Promise<void> {
    if (worker) logs.push(worker.logFile);
    worker?.kill('SIGKILL');
    await worker?.exited;
    worker = null;
  }

  beforeAll(async () => {
    assertFreshBuild();
    mock = await startMockAnthropic();
    mock.setRespond((call) => {
      const turn = eventOfCall(call.body);
      // long enough for a kill to land mid-turn now and then
      return {
        text: `reply to ${turn}`,
        usage: { input_tokens: 900 + turn.length, output_tokens: 120, cache_read_input_tokens: 4000 },
        delayMs: Math.floor(next() * 1500),
      };
    });
    env = await setupRealClaudeEnv(mock, KEY, {
      envFileLines: [`ANTHROPIC_MODEL=${MODEL}`],
      passthrough: ['ANTHROPIC_MODEL'],
      yaml: { pricing: { [MODEL]: PRICE } },
    });
    raw = parse(readFileSync(env.configFile, 'utf8')) as Record<string, unknown>;
    raw.temporal = { address: testServer().address, taskQueue: QUEUE };
    writeFileSync(env.configFile, stringify(raw));
    await startWorker();
  });

  afterAll(async () => {
    await killWorker();
    await env?.dispose();
    await mock?.close();
  });

  it(`${KILLS} worker kills over ${TURNS} hosted turns: the recorded cost is what was spent, each turn once`, async () => {
    for (let i = 1; i <= TURNS; i++) {
      const outcome = await deliverToWorkItem(
        env.client,
        queues(),
        ITEM,
        { id: `e${i}`, text: `EVT-${i}: go on`, source: 'test' },
        i === 1,
      );
      expect(outcome).toBe(i === 1 ? 'started' : 'signalled');
    }
    const agentCalls = () => mock.requests.filter((r) => r.kind === 'agent').length;
    let kills = 0;
    while (kills < KILLS) {
      // at a random moment of a turn: after its model call went out, or as it is answered and counted
      const calls = agentCalls();
      await waitFor(
        'the next model call',
        () => agentCalls() > calls || agentCalls() >= TURNS,
        240_000,
      ).catch(diagnose);
      await new Promise((r) => setTimeout(r, Math.floor(next() * 2000)));
      await killWorker();
      kills += 1;
      await startWorker();
      if (agentCalls() >= TURNS) break;
    }
    for (; kills < KILLS; kills++) {
      await killWorker();
      await startWorker();
    }
    const status = async () => {
      const handle = await runningWorkItem(env.client, ITEM);
      return handle && queryAnswer(() => handle.query(statusQuery));
    };
    await waitFor(
      'every event to be delivered',
      async () => (await status())?.delivered === TURNS,
      600_000,
    ).catch(diagnose);
    await waitFor(
      'every turn to be counted',
      () => (env.record(ITEM)?.spent?.last_counted.iteration ?? 0) >= TURNS,
      300_000,
    );

    const price = priceTable({ [MODEL]: PRICE })[MODEL] ?? PRICE;
    const served = mock.requests
      .filter((r) => r.kind === 'agent')
      .map((r) => {
        const turn = eventOfCall(r.body);
        return costOf(
          {
            input_tokens: 900 + turn.length,
            output_tokens: 120,
            cache_read_input_tokens: 4000,
            cache_creation_input_tokens: 0,
          },
          price,
        );
      });
    const spentUsd = served.reduce((sum, cost) => addUsd(sum, cost), 0);
    const spent = env.record(ITEM)?.spent;
    const counted = workItemEvents(env, ITEM, 'turn.spent').map((e) => e.data?.['iteration']);
    process.stderr.write(
      `hosted kill loop: ${JSON.stringify({ seed, kills, turns: TURNS, modelCalls: served.length, spentUsd, recordedUsd: spent?.usage.cost_usd, counted })}\n`,
    );
    // one model call per event (no turn ran twice), and each counted once; a turn that ran twice says which, when
    if (served.length !== TURNS) {
      const calls = mock.requests
        .filter((r) => r.kind === 'agent')
        .map((r) => `${new Date(r.at).toISOString()} ${eventOfCall(r.body)}`);
      await diagnose(`${served.length} model calls for ${TURNS} turns:\n${calls.join('\n')}`);
    }
    expect(served).toHaveLength(TURNS);
    expect(counted).toEqual(Array.from({ length: TURNS }, (_, i) => i + 1));
    expect(spent?.usage.cost_usd).toBe(spentUsd);
    expect(spent?.usage.num_turns).toBe(TURNS);
    // and each event's delivery is in the work item's log once, whichever attempt of it took the turn
    const delivered = workItemEvents(env, ITEM, 'event.delivered').map((e) => String(e.data?.['event_id']));
    expect(delivered.sort()).toEqual(Array.from({ length: TURNS }, (_, i) => `e${i + 1}`).sort());
  });
});
