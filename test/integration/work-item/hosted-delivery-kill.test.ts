import { readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { parse, stringify } from 'yaml';
import { deliverToWorkItem, runningWorkItem } from '../../../src/temporal/work-items';
import { hostQueueName } from '../../../src/workflows/goal-session/host-queue';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import { messagesText, startMockAnthropic, type MockAnthropic } from '../../support/mock-anthropic';
import { testServer, uniqueQueue } from '../../support/temporal';
import { waitFor, queryAnswer } from '../../support/wait';
import { assertFreshBuild, spawnWorkerProcess, type WorkerProcess } from '../../support/worker-processes';
import { eventOfCall, setupRealClaudeEnv, workItemEvents, type WorkItemTestEnv } from './helpers';

jest.setTimeout(600_000);

const KEY = `sk-ant-api03-delivery-kill-${randomUUID()}`;
// Work-item workflow ids are server-wide and every suite shares the run's dev server: a number no other suite uses.
const ITEM = 'github:octo/repo#1932';
const QUEUE = uniqueQueue('delivery-kill');

/**
 * A worker killed in the middle of a hosted delivery, with the REAL interactive Claude Code in tmux: before it pasted
 * the event, and after the paste but before its Enter (the text waits in claude's input box). The next worker
 * delivers each event once: one turn, one model call, the event's text in it once.
 */
describe('a worker killed while it delivers a hosted event', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;
  let worker: WorkerProcess | null = null;
  let raw: Record<string, unknown>;
  const queues = () => ({ taskQueue: QUEUE, hostQueue: hostQueueName(QUEUE, 'testhost') });

  async function startWorker(faultPoint?: string): Promise<WorkerProcess> {
    const started = spawnWorkerProcess({
      address: testServer().address,
      taskQueue: QUEUE,
      hostId: 'testhost',
      bundlePath: testServer().bundlePath,
      config: raw,
      stateDir: `${env.dir}/worker-state`,
      ...(faultPoint ? { faultPoint } : {}),
    });
    await started.ready;
    worker = started;
    return started;
  }

  beforeAll(async () => {
    assertFreshBuild(['test/support/worker-process.ts', 'src/work-item/host/deliver-turn.ts']);
    mock = await startMockAnthropic();
    mock.setRespond((call) => {
      const turn = eventOfCall(call.body);
      return { text: `reply to ${turn}` };
    });
    env = await setupRealClaudeEnv(mock, KEY);
    raw = parse(readFileSync(env.configFile, 'utf8')) as Record<string, unknown>;
    raw.temporal = { address: testServer().address, taskQueue: QUEUE };
    writeFileSync(env.configFile, stringify(raw));
  });

  afterAll(async () => {
    worker?.kill('SIGKILL');
    await worker?.exited;
    await env?.dispose();
    await mock?.close();
  });

  it('before its paste, and between its paste and its Enter: the next worker delivers the event once', async () => {
    const agentCalls = () => mock.requests.filter((r) => r.kind === 'agent');
    const deliver = (i: number) =>
      deliverToWorkItem(
        env.client,
        queues(),
        ITEM,
        { id: `e${i}`, text: `EVT-${i}: go on`, source: 'test' },
        i === 1,
      );

    // the first worker dies as it is about to paste e2
    const first = await startWorker('deliver:before-paste:e2');
    expect(await deliver(1)).toBe('started');
    await waitFor('the first turn', () => agentCalls().length === 1, 240_000);
    expect(await deliver(2)).toBe('signalled');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(agentCalls()).toHaveLength(1);

    // the second delivers e2, then dies with e3 pasted but not submitted
    const second = await startWorker('deliver:before-submit:e3');
    await waitFor('the second turn', () => agentCalls().length === 2, 240_000);
    expect(await deliver(3)).toBe('signalled');
    expect((await second.exited).signal).toBe('SIGKILL');
    await waitFor(
      'the text waiting in the input box',
      () => env.capture(ITEM).includes('EVT-3: go on'),
      60_000,
    );

    // the third submits e3 as it is
    await startWorker();
    const status = async () => {
      const handle = await runningWorkItem(env.client, ITEM);
      return handle && queryAnswer(() => handle.query(statusQuery));
    };
    await waitFor('every event to be delivered', async () => (await status())?.delivered === 3, 300_000);
    await waitFor(
      'every turn to be counted',
      () => (env.record(ITEM)?.spent?.last_counted.iteration ?? 0) >= 3,
      120_000,
    );

    // one model call per event, and each event's text in its turn once (not pasted twice into the input box)
    const calls = agentCalls();
    expect(calls).toHaveLength(3);
    calls.forEach((call, i) => {
      const said = messagesText(call.body).match(new RegExp(`EVT-${i + 1}: go on`, 'g'));
      expect(said).toHaveLength(1);
    });
    expect(workItemEvents(env, ITEM, 'turn.spent').map((e) => e.data?.['iteration'])).toEqual([1, 2, 3]);
    const delivered = workItemEvents(env, ITEM, 'event.delivered').map((e) => e.data?.['event_id']);
    expect(delivered).toEqual(['e1', 'e2', 'e3']);
    expect(workItemEvents(env, ITEM, 'event.failed')).toEqual([]);
  });
});
