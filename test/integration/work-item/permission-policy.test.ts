import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { deliverToWorkItem } from '../../../src/temporal/work-items';
import {
  runBashReply,
  startMockAnthropic,
  type MessagesBody,
  type MockAnthropic,
  type MockReply,
} from '../../support/mock-anthropic';
import { setupRealClaudeEnv, workItemEvents, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

jest.setTimeout(600_000);

const KEY = `sk-ant-api03-policy-test-${randomUUID()}`;

const toolResult = (body: MessagesBody | null): string | null => {
  const last = body?.messages?.at(-1);
  if (!Array.isArray(last?.content)) return null;
  const result = last.content.find((b) => b.type === 'tool_result');
  return result ? JSON.stringify(result) : null;
};

/**
 * permissions.remote and permissions.timeout on the REAL claude, hosted with the plugin: a prompt the policy allows
 * or denies is answered at once (nobody is asked, nothing waits); one it asks about waits, and gets onTimeout's
 * answer once the timeout passes. Each answer is recorded, with the policy or the timeout as what answered.
 */
describe('the permission policy', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;

  beforeAll(async () => {
    mock = await startMockAnthropic();
    mock.setRespond((call): MockReply => {
      const result = toolResult(call.body);
      if (result)
        return {
          text: `tool said: ${result.includes('is_error') && result.includes('true') ? 'refused' : 'ran'}`,
        };
      return runBashReply(call.body) ?? { text: 'ok' };
    });
    env = await setupRealClaudeEnv(mock, KEY, {
      yaml: {
        permissions: {
          remote: { 'Bash(*ALLOWED*)': 'allow', 'Bash(*DENIED*)': 'deny' },
          timeout: '3s',
          onTimeout: 'deny',
        },
      },
    });
  });

  afterAll(async () => {
    await env.dispose();
    await mock.close();
  });

  /** An event whose turn asks to run a Bash command that writes `marker`; the first one opens the session. */
  const runBash = (item: string, id: string, marker: string) =>
    deliverToWorkItem(
      env.client,
      env.queues,
      item,
      { id, text: `RUN-BASH ${marker}`, source: 'test' },
      id === 'e1',
    );

  const refusalSent = (text: string) =>
    waitFor(
      `claude to be told '${text}'`,
      () => mock.requests.find((r) => r.kind === 'agent' && (toolResult(r.body) ?? '').includes(text)),
      120_000,
    );

  it('allows and denies by tool pattern without asking anyone; asks about the rest, denied once the timeout passes', async () => {
    const item = 'github:octo/repo#1551';
    const allowed = join(env.dir, `ALLOWED-${randomUUID()}`);
    expect(await runBash(item, 'e1', allowed)).toBe('started');
    await waitFor('the allowed command to run', () => existsSync(allowed), 120_000);

    const denied = join(env.dir, `DENIED-${randomUUID()}`);
    await runBash(item, 'e2', denied);
    await refusalSent("denied by the-loop's permissions.remote (Bash(*DENIED*))");
    expect(existsSync(denied)).toBe(false);
    // answered by the policy: nothing waited for a person
    expect(workItemEvents(env, item, 'wait.began')).toEqual([]);

    const asked = join(env.dir, `ASKED-${randomUUID()}`);
    await runBash(item, 'e3', asked);
    await refusalSent('no answer in time (permissions.timeout)');
    expect(existsSync(asked)).toBe(false);
    await waitFor('the wait to end', () => workItemEvents(env, item, 'wait.ended').length === 1, 60_000);
    expect(workItemEvents(env, item, 'wait.began').map((e) => e.data?.reason)).toEqual(['permission']);
    expect(
      workItemEvents(env, item, 'permission.answered').map((e) => [
        e.data?.via,
        e.data?.decision,
        e.data?.by,
      ]),
    ).toEqual([
      ['policy', 'allow', 'permissions.remote Bash(*ALLOWED*)'],
      ['policy', 'deny', 'permissions.remote Bash(*DENIED*)'],
      ['timeout', 'deny', 'the-loop'],
    ]);
  });
});
