import { randomUUID } from 'node:crypto';
import { deliverToWorkItem } from '../../../src/temporal/work-items';
import { messagesText, startMockAnthropic, type MockAnthropic } from '../../support/mock-anthropic';
import { setupRealClaudeEnv, workItemEvents, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

jest.setTimeout(600_000);

const KEY = `sk-ant-api03-stuck-test-${randomUUID()}`;

/**
 * A hosted turn of the REAL claude that stops moving (the mock model holds its answer): once its transcript has not
 * grown for routing.stuckAfter, the session waits for a person as `stuck`, in every view; the wait ends with the turn.
 */
describe('a stuck turn', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;
  let answer: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (answer = resolve));

  beforeAll(async () => {
    mock = await startMockAnthropic();
    mock.setRespond((call) =>
      messagesText(call.body).includes('EVT-slow')
        ? { text: 'done at last', until: answered }
        : { text: 'ok' },
    );
    env = await setupRealClaudeEnv(mock, KEY, { yaml: { routing: { stuckAfter: '2s' } } });
  });

  afterAll(async () => {
    answer();
    await env.dispose();
    await mock.close();
  });

  it('shows as waiting: stuck while its transcript does not grow, and no longer once the turn ends', async () => {
    const item = 'github:octo/repo#1451';
    const event = { id: 'e1', text: 'EVT-slow: a turn that hangs', source: 'test' };
    expect(await deliverToWorkItem(env.client, env.queues, item, event, true)).toBe('started');
    const stuck = await waitFor(
      'the turn to show as stuck',
      () => (env.record(item)?.waiting?.reason === 'stuck' ? env.record(item)?.waiting : null),
      180_000,
    );
    expect(stuck.detail).toMatch(/^no progress for .+: the transcript has not grown since /);
    const list = await env.cli(['sessions', 'list', '--status', 'waiting']);
    expect(list.stdout.split('\n').find((line) => line.startsWith(`${item} `))).toContain('waiting: stuck');
    const inbox = await env.cli(['inbox', '--format', 'json']);
    expect(JSON.parse(inbox.stdout)).toEqual([expect.objectContaining({ session: item, reason: 'stuck' })]);

    answer();
    await waitFor('the wait to end with the turn', () => env.record(item)?.waiting === null, 180_000);
    const waits = await waitFor(
      'the event log to say it ended',
      () => {
        const events = workItemEvents(env, item, 'wait.began', 'wait.ended');
        return events.length === 2 ? events : null;
      },
      180_000,
    );
    expect(waits.map((e) => [e.type, e.data?.reason])).toEqual([
      ['wait.began', 'stuck'],
      ['wait.ended', 'stuck'],
    ]);
  });
});
