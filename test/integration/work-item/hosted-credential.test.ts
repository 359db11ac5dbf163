import { randomUUID } from 'node:crypto';
import { deliverToWorkItem } from '../../../src/temporal/work-items';
import { messagesText, startMockAnthropic, type MockAnthropic } from '../../support/mock-anthropic';
import { setupRealClaudeEnv, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

jest.setTimeout(600_000);

const REVOKED = `sk-ant-api03-revoked-${randomUUID()}`;
const KEY = `sk-ant-api03-credential-test-${randomUUID()}`;
// Work-item workflow ids are server-wide and every suite shares the run's dev server: a number no other suite uses.
const ITEM = 'github:octo/repo#1941';
/** claude 2.1.197 sends a refused call ten times more, over about three minutes, before it gives up. */
const CLAUDE_ATTEMPTS = 11;

/**
 * A credential the model API refuses, with the REAL interactive Claude Code hosted in tmux against the local mock:
 * the turn fails at the first refusals instead of claude's three minutes of retries, claude is stopped, and the
 * session waits, blocked, saying which credential to fix. Once it is fixed in env.file, `sessions start` delivers the
 * event again, and claude, in the same pane, uses the new key.
 */
describe('a hosted session whose credential is refused', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;
  const calls = (key?: string) =>
    mock.requests.filter(
      (r) =>
        r.kind === 'agent' &&
        /EVT-auth/.test(messagesText(r.body)) &&
        (key === undefined || r.headers['x-api-key'] === key),
    );

  beforeAll(async () => {
    mock = await startMockAnthropic();
    // a revoked key is refused, with no x-should-retry header: claude retries a 401 as it does against the real API
    mock.setRespond((call) =>
      call.headers['x-api-key'] === KEY
        ? { text: 'reply to EVT-auth' }
        : { status: 401, retryHeader: 'absent' },
    );
    env = await setupRealClaudeEnv(mock, REVOKED);
  });

  afterAll(async () => {
    await env?.dispose();
    await mock?.close();
  });

  it('fails the turn at the first refusals, stops claude, and waits blocked on the credential', async () => {
    const began = Date.now();
    expect(
      await deliverToWorkItem(
        env.client,
        env.queues,
        ITEM,
        { id: 'e1', text: 'EVT-auth: go on', source: 'test' },
        true,
      ),
    ).toBe('started');
    const waiting = await waitFor(
      'the session to wait on the refused credential',
      () => {
        const wait = env.record(ITEM)?.waiting;
        return wait?.reason === 'blocked' ? wait : null;
      },
      240_000,
    );
    expect(waiting.detail).toMatch(
      /claude: the model API refused the credential \(401 authentication_error\): check ANTHROPIC_API_KEY/,
    );
    expect(waiting.detail).not.toContain(REVOKED);
    const row = (await env.cli(['sessions', 'list'])).stdout.split('\n').find((l) => l.startsWith(ITEM));
    expect(row).toMatch(/waiting: blocked/);
    // claude was stopped: its prompt is empty again, and its retries end well short of its ten
    await waitFor('claude to be idle', () => /^❯\s*$/m.test(env.capture(ITEM)), 120_000);
    const refused = calls().length;
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(CLAUDE_ATTEMPTS);
    process.stderr.write(
      `refused credential: blocked after ${refused} refused calls, ${((Date.now() - began) / 1000).toFixed(1)} s from the delivery\n`,
    );

    // the key is fixed in env.file, and the session started again: the event is delivered again, once, with the new
    // key (the pane was not restarted)
    env.writeEnvFile(`ANTHROPIC_API_KEY=${KEY}`);
    expect((await env.cli(['sessions', 'start', '--work-item', ITEM])).code).toBe(0);
    await waitFor(
      'the event to be delivered again',
      () => (env.record(ITEM)?.spent?.usage.num_turns ?? 0) >= 1 && !env.record(ITEM)?.waiting,
      240_000,
    );
    // once with the new key; a retry of the old one that was on its way when claude was stopped may still land
    // on a loaded machine, and is refused like the others
    expect(calls(KEY)).toHaveLength(1);
    expect(calls(REVOKED).length).toBeLessThan(CLAUDE_ATTEMPTS);
  });
});
