import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deliverToWorkItem, runningWorkItem } from '../../../src/temporal/work-items';
import { hookChannelDir } from '../../../src/worker/socket-dir';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import {
  messagesText,
  startMockAnthropic,
  type MessagesBody,
  type MockAnthropic,
  type MockReply,
} from '../../support/mock-anthropic';
import type { FakeGitHub } from '../../support/fake-github/server';
import { setupRealClaudeEnv, workItemEvents, type WorkItemTestEnv } from './helpers';
import { staysTrue, waitFor } from '../../support/wait';

jest.setTimeout(600_000);

const KEY = `sk-ant-api03-turns-test-${randomUUID()}`;
/** A shell config that takes longer than the 10 s Claude Code gives the snapshot of the user's shell. */
const PAST_CLAUDES_SNAPSHOT_WINDOW_S = 15;

const isToolResult = (body: MessagesBody) => {
  const last = body.messages?.at(-1);
  return Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
};

/**
 * Delivery into the REAL interactive Claude Code, hosted by the-loop in tmux with the plugin, against the local mock
 * of the Anthropic API: an event is a turn that the Stop hook ends (its reply in result.json); an event that starts
 * the TUI is submitted once the TUI is ready (the mock receives it); an event that arrives while a permission prompt
 * waits is held (it does not answer the prompt) and delivered after a person answers it.
 */
// Work-item workflow ids are server-wide and every suite shares the run's dev server: numbers no other suite uses.
describe('turns of the real claude, hosted with the plugin', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;

  const deliver = (ref: string, id: string, text: string, allowStart = false) =>
    deliverToWorkItem(env.client, env.queues, ref, { id, text, source: 'test' }, allowStart);
  const agentCallWith = (text: string) =>
    waitFor(
      `the mock to receive '${text}'`,
      () => mock.requests.find((r) => r.kind === 'agent' && messagesText(r.body).includes(text)),
      120_000,
    );
  const statusOf = async (ref: string) => (await runningWorkItem(env.client, ref))?.query(statusQuery);
  const resultOf = async (ref: string, n: number) => {
    const file = join(
      env.record(ref)?.session_dir ?? '',
      'iterations',
      `${String(n).padStart(4, '0')}_event`,
    );
    return waitFor(
      `result.json of turn ${n}`,
      () => (existsSync(join(file, 'result.json')) ? file : null),
      120_000,
    ).then((dir) => ({
      prompt: readFileSync(join(dir, 'prompt.txt'), 'utf8'),
      result: JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as Record<string, unknown>,
    }));
  };

  // The reply to EVT-away waits for this: its turn ends while the worker is stopped.
  let stopped: () => void = () => undefined;
  const workerGone = new Promise<void>((r) => (stopped = r));

  beforeAll(async () => {
    mock = await startMockAnthropic();
    // Each turn's reply names what it answers; one prompt asks for a Bash call, which needs a person's approval.
    // (The newest prompt is the last marker in the conversation the CLI sends.)
    mock.setRespond((call): MockReply => {
      if (isToolResult(call.body)) return { text: 'the approved command ran' };
      if (/EVT-ask[^]*$/.test(messagesText(call.body)) && !messagesText(call.body).includes('EVT-answer'))
        return { text: 'I read the issue.\n\nWhich branch should I target, `main` or `release`?' };
      if (messagesText(call.body).includes('EVT-away'))
        return { text: 'reply to EVT-away', until: workerGone };
      const last = [...messagesText(call.body).matchAll(/RUN-BASH (\S+)|RUN-HELD (\S+)|EVT-[a-z]+/g)].at(-1);
      // a command that writes its marker, then runs until the test creates `<marker>.go`
      if (last?.[2])
        return {
          toolUses: [
            {
              name: 'Bash',
              input: {
                command: `sh -c 'echo ran > ${last[2]}; until [ -e ${last[2]}.go ]; do sleep 0.2; done'`,
                description: 'Write a marker, then wait',
              },
            },
          ],
        };
      if (last?.[1])
        return {
          toolUses: [
            {
              name: 'Bash',
              input: { command: `sh -c 'echo ran > ${last[1]}'`, description: 'Write a marker' },
            },
          ],
        };
      return { text: `reply to ${last?.[0] ?? 'something else'}` };
    });
    // HOME is forwarded so that one test can give its pane a HOME of its own (through env.file)
    env = await setupRealClaudeEnv(mock, KEY, { passthrough: ['HOME'] });
  });

  afterAll(async () => {
    await env.dispose();
    await mock.close();
  });

  it('an event that starts the TUI is submitted once it is ready; the turn ends with the reply in result.json', async () => {
    const item = 'github:octo/repo#1301';
    // No session yet: the event opens one, and its delivery spawns claude in tmux.
    expect(await deliver(item, 'e1', 'EVT-one: first words while claude starts', true)).toBe('started');
    await agentCallWith('EVT-one: first words while claude starts');
    const turn = await resultOf(item, 1);
    expect(turn.prompt).toBe('EVT-one: first words while claude starts');
    expect(turn.result).toMatchObject({
      success: true,
      text: 'reply to EVT-one',
      harness_session_id: env.record(item)?.harness_session_id,
    });
    await waitFor('the event delivered', async () => (await statusOf(item))?.delivered === 1, 180_000);
  });

  it('start: the first node of the process graph (/the-loop:work-on --phase spec) is the first turn, even when its `the-loop item show` outlasts the submit window and runs in a login shell; an event sent while the start runs is the next one, submitted', async () => {
    const item = 'github:octo/repo#1302';
    // The command's `!the-loop item show` runs before claude reports the turn as begun: a GitHub that takes longer
    // than delivery's 30 s submit window must not make the submitted kickoff count as "not submitted".
    const github = env.github as FakeGitHub;
    github.slow = { match: /^GET \/repos\/octo\/repo\/issues\/1302$/, ms: 40_000 };
    // Claude Code runs a command in a snapshot of the user's shell, made within 10 s, else in a login shell: a loaded
    // machine overruns the 10 s, and a profile that sets PATH anew (Debian's /etc/profile) drops the pane's bin/.
    // Here the shell config outlasts the window and the profile keeps only node: `the-loop` must still be found.
    const home = join(env.dir, 'home-of-a-slow-shell');
    mkdirSync(home);
    writeFileSync(join(home, '.bashrc'), `sleep ${PAST_CLAUDES_SNAPSHOT_WINDOW_S}\n`);
    writeFileSync(join(home, '.profile'), `PATH=${dirname(process.execPath)}:/usr/bin:/bin\n`);
    env.writeEnvFile(`HOME=${home}`);
    try {
      // the event comes while the start waits for claude's TUI: it must not go ahead of the start node's turn
      let started = false;
      const start = env.cli(['sessions', 'start', '--work-item', item, '--no-comment']).finally(() => {
        started = true;
      });
      await waitFor('the session to open', async () => (await statusOf(item))?.status === 'active', 120_000);
      await deliver(item, 'e1', 'EVT-two: an event while the start runs');
      expect(started).toBe(false);
      expect((await start).code).toBe(0);
      await agentCallWith('EVT-two: an event while the start runs');
      const kickoff = await resultOf(item, 1);
      expect(kickoff.prompt).toBe(`/the-loop:work-on ${item} --phase spec`);
      expect(kickoff.result).toMatchObject({ success: true });
      // `the-loop item show` ran in claude's login shell, and the slow answer was the one it waited for
      await agentCallWith(`${item}: GitHub knows no such issue or pull request`);
      expect(github.requests.some((r) => r.path === '/repos/octo/repo/issues/1302')).toBe(true);
      const event = await resultOf(item, 2);
      expect(event.prompt).toBe('EVT-two: an event while the start runs');
      expect(event.result).toMatchObject({ success: true, text: 'reply to EVT-two' });
      expect(await statusOf(item)).toMatchObject({ blocked: null });
    } finally {
      github.slow = null;
      env.writeEnvFile();
    }
  });

  it('an event during a permission prompt is held, does not answer it, and is delivered once a person does', async () => {
    const item = 'github:octo/repo#1303';
    const marker = join(env.dir, `ran-${randomUUID()}`);
    expect(await deliver(item, 'e1', `please RUN-BASH ${marker}`, true)).toBe('started');
    const waiting = await waitFor(
      'the session to wait for a human',
      async () => {
        const s = await statusOf(item);
        return s?.waiting ? s : null;
      },
      120_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the pane shows:\n${env.capture(item)}`);
    });
    expect(waiting.waiting).toMatch(/permission/i);
    expect(waiting.status).toBe('active');

    // Every view says so, with since when: the list, the session whole, the inbox, the work item's events.
    const recorded = await waitFor(
      'the wait in the registry record',
      () => env.record(item)?.waiting,
      180_000,
    );
    expect(recorded).toMatchObject({ reason: 'permission', detail: expect.stringMatching(/permission/i) });
    expect((await statusOf(item))?.waitingFor).toEqual(recorded);
    const list = await env.cli(['sessions', 'list', '--status', 'waiting']);
    expect(list.code).toBe(0);
    const row = list.stdout.split('\n').find((line) => line.startsWith(`${item} `));
    expect(row).toContain('waiting: permission');
    expect(row).toContain(recorded.since.replace(/\.\d+Z$/, 'Z'));
    const show = await env.cli(['sessions', 'show', item, '--format', 'json']);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({
      work_item: item,
      status: 'waiting: permission',
      waiting: recorded,
      attach: `the-loop sessions attach --work-item ${item}`,
    });
    const shown = await env.cli(['sessions', 'show', item]);
    expect(shown.stdout).toMatch(/^status: +waiting: permission since /m);
    const inbox = await env.cli(['inbox', '--format', 'json']);
    expect(inbox.code).toBe(0);
    expect((JSON.parse(inbox.stdout) as { session: string }[]).find((e) => e.session === item)).toMatchObject(
      {
        kind: 'work-item',
        reason: 'permission',
        since: recorded.since,
      },
    );

    await deliver(item, 'e2', 'EVT-three: second event while the prompt shows');
    await waitFor('the second event queued', async () => (await statusOf(item))?.queued === 2, 180_000);
    // Give a wrong implementation every chance to paste it: it would select "Yes" and run the command.
    await staysTrue(
      'the command not run and the second event not pasted',
      () =>
        !existsSync(marker) &&
        !mock.requests.some(
          (r) =>
            r.kind === 'agent' &&
            messagesText(r.body).includes('EVT-three: second event while the prompt shows'),
        ),
      5000,
    );
    expect((await statusOf(item))?.waiting).toBeTruthy();

    // A person answers the prompt ("1. Yes" is selected): the command runs, the turn ends, the held event follows.
    env.tmux('send-keys', '-t', `=${env.tmuxName(item)}:`, 'Enter');
    await waitFor('the approved command to run', () => existsSync(marker), 180_000);
    const first = await resultOf(item, 1);
    expect(first.result).toMatchObject({ success: true, text: 'the approved command ran' });
    await agentCallWith('EVT-three: second event while the prompt shows');
    const second = await resultOf(item, 2);
    expect(second.prompt).toBe('EVT-three: second event while the prompt shows');
    expect(second.result).toMatchObject({
      success: true,
      text: 'reply to EVT-three',
    });
    await waitFor(
      'both delivered',
      async () => {
        const s = await statusOf(item);
        return s?.delivered === 2 && s.queued === 0 && !s.waiting;
      },
      180_000,
    );
    // answered: the wait is gone from every view, and the event log has its beginning and its end
    await waitFor('the wait cleared in the record', () => env.record(item)?.waiting === null, 180_000);
    const after = await env.cli(['inbox', '--format', 'json']);
    expect((JSON.parse(after.stdout) as { session: string }[]).some((e) => e.session === item)).toBe(false);
    const listed = await env.cli(['sessions', 'list']);
    expect(listed.stdout.split('\n').find((line) => line.startsWith(`${item} `))).toMatch(/^\S+ +active /);
    const waits = workItemEvents(env, item, 'wait.began', 'wait.ended');
    expect(waits.map((e) => [e.type, e.data?.reason])).toEqual([
      ['wait.began', 'permission'],
      ['wait.ended', 'permission'],
    ]);
  });

  /** A new session whose first turn waits at a permission prompt, with `next` queued behind it; the tool's marker. */
  async function heldAtPrompt(item: string, next: string): Promise<string> {
    const marker = join(env.dir, `ran-${randomUUID()}`);
    expect(await deliver(item, 'e1', `please RUN-BASH ${marker}`, true)).toBe('started');
    await waitFor('the permission prompt', async () => Boolean((await statusOf(item))?.waiting), 120_000);
    await deliver(item, 'e2', next);
    await waitFor('the second event queued', async () => (await statusOf(item))?.queued === 2, 180_000);
    return marker;
  }

  it('Esc at a permission prompt ends the turn (claude runs no Stop hook), and the next event is delivered', async () => {
    const item = 'github:octo/repo#1305';
    const marker = await heldAtPrompt(item, 'EVT-four: after the interruption');

    env.tmux('send-keys', '-t', `=${env.tmuxName(item)}:`, 'Escape');
    const first = await resultOf(item, 1);
    expect(first.result).toMatchObject({
      success: false,
      error: expect.stringMatching(/^interrupted in the terminal: \[Request interrupted by user/),
    });
    expect(existsSync(marker)).toBe(false);
    // the session goes on: the held event is the next turn, and nothing waits any more
    await agentCallWith('EVT-four: after the interruption');
    const second = await resultOf(item, 2);
    expect(second.prompt).toBe('EVT-four: after the interruption');
    // the error, when there is one, is in the failure message: seen once as `success: false` on a loaded machine
    expect({ success: second.result.success, error: second.result.error }).toEqual({
      success: true,
      error: null,
    });
    await waitFor(
      'both delivered, nothing waiting',
      async () => {
        const s = await statusOf(item);
        return s?.delivered === 2 && s.queued === 0 && !s.waiting && s.blocked === null;
      },
      180_000,
    );
    await waitFor('the wait cleared in the record', () => env.record(item)?.waiting === null, 180_000);
  });

  it('a stop drops what is still queued, recorded as event.dropped with its text, and says how many', async () => {
    const item = 'github:octo/repo#1306';
    await heldAtPrompt(item, 'EVT-five: never taken');

    const stop = await env.cli(['sessions', 'stop', '--work-item', item, '--no-comment']);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain('dropped 1 queued event that no turn took');
    // the turn under way took its event: only the one behind it is dropped
    const dropped = workItemEvents(env, item, 'event.dropped');
    expect(dropped.map((e) => e.data)).toEqual([{ id: 'e2', text: 'EVT-five: never taken', source: 'test' }]);
  });

  it('a permission prompt answered from the CLI: allow runs the tool, deny tells claude why; each answer is recorded', async () => {
    const item = 'github:octo/repo#1307';
    const allowed = join(env.dir, `ran-${randomUUID()}`);
    expect(await deliver(item, 'e1', `please RUN-BASH ${allowed}`, true)).toBe('started');
    const asked = await waitFor(
      'the prompt in the registry record',
      () => (env.record(item)?.waiting?.reason === 'permission' ? env.record(item)?.waiting : null),
      120_000,
    );
    // what the prompt asks, from the PermissionRequest hook: the tool and its command
    expect(asked.detail).toContain(`permission to use Bash: sh -c 'echo ran > ${allowed}'`);
    const allow = await env.cli(['sessions', 'answer', '--work-item', item, 'allow']);
    expect(allow.stderr).toBe('');
    expect(allow.code).toBe(0);
    expect(allow.stdout).toBe(`${item}: allowed ${asked.detail}\n`);
    await waitFor('the allowed command to run', () => existsSync(allowed), 120_000);
    expect((await resultOf(item, 1)).result).toMatchObject({
      success: true,
      text: 'the approved command ran',
    });
    await waitFor('the wait cleared', () => env.record(item)?.waiting === null, 180_000);
    // nothing waits now: an answer is refused, in one line
    const stale = await env.cli(['sessions', 'answer', '--work-item', item, 'allow']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe(
      `the-loop: allow ${item} refused: no permission prompt waits in ${item}'s pane\n`,
    );

    const denied = join(env.dir, `ran-${randomUUID()}`);
    await deliver(item, 'e2', `please RUN-BASH ${denied}`);
    await waitFor('the second prompt', () => env.record(item)?.waiting?.detail.includes(denied), 120_000);
    const deny = await env.cli([
      'sessions',
      'answer',
      '--work-item',
      item,
      'deny',
      '--reason',
      'NOT-ON-MAIN',
    ]);
    expect(deny.code).toBe(0);
    // claude is told, and its turn goes on to its end
    const refusal = await agentCallWith('NOT-ON-MAIN');
    expect(refusal.body && isToolResult(refusal.body)).toBe(true);
    expect((await resultOf(item, 2)).result).toMatchObject({ success: true });
    expect(existsSync(denied)).toBe(false);
    const answers = workItemEvents(env, item, 'permission.answered').map((e) => [
      e.data?.decision,
      e.data?.via,
      e.data?.reason,
    ]);
    expect(answers).toEqual([
      ['allow', 'cli', null],
      ['deny', 'cli', 'NOT-ON-MAIN'],
    ]);
  });

  it('a turn that ends while its worker is stopped is spooled by the Stop hook and completes when a worker is back', async () => {
    const item = 'github:octo/repo#1304';
    expect(await deliver(item, 'e1', 'EVT-away: a turn across a worker stop', true)).toBe('started');
    await agentCallWith('EVT-away: a turn across a worker stop');
    await env.stopWorker();
    stopped();
    // past the hook's retry window (8 s) with no socket: the report goes to the session's spool
    const spool = join(hookChannelDir(env.stateDir), 'spool');
    await waitFor(
      'the turn-ended report in the spool',
      () =>
        existsSync(spool) &&
        readdirSync(spool).some((f) => readFileSync(join(spool, f), 'utf8').includes('"turn-ended"')),
      120_000,
    );
    await env.startWorker();
    const turn = await resultOf(item, 1);
    expect(turn.result).toMatchObject({ success: true, text: 'reply to EVT-away' });
    await waitFor(
      'the turn delivered',
      async () => {
        const s = await statusOf(item);
        return s?.delivered === 1 && s.queued === 0;
      },
      180_000,
    );
    expect(readdirSync(spool)).toEqual([]);
  });

  it('the terminal and a remote answer race: the first one decides, the other is told, and one answer is recorded', async () => {
    const item = 'github:octo/repo#1308';
    const answers = () =>
      workItemEvents(env, item, 'permission.answered').map((e) => [e.data?.via, e.data?.decision]);
    const showsPrompt = () => /Esc to cancel/.test(env.capture(item));

    // The terminal first: a person selects "Yes" in the pane. The command runs and holds its turn open, so what ends
    // the wait is the prompt leaving the screen, not the turn's end.
    const held = join(env.dir, `ran-${randomUUID()}`);
    expect(await deliver(item, 'e1', `please RUN-HELD ${held}`, true)).toBe('started');
    await waitFor(
      'the prompt held for an answer',
      () => env.record(item)?.waiting?.reason === 'permission',
      120_000,
    );
    await waitFor('the prompt on the screen', showsPrompt, 60_000);
    env.tmux('send-keys', '-t', `=${env.tmuxName(item)}:`, 'Enter');
    await waitFor('the command the terminal allowed to run', () => existsSync(held), 60_000);
    const late = await env.cli(['sessions', 'answer', '--work-item', item, 'deny', '--reason', 'TOO-LATE']);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(
      /^the-loop: deny github:octo\/repo#1308 refused: (no permission prompt waits in github:octo\/repo#1308's pane|the prompt in github:octo\/repo#1308's pane was answered in the terminal first)\n$/,
    );
    await waitFor('the wait ended while the command runs', () => env.record(item)?.waiting === null, 60_000);
    expect(answers()).toEqual([['terminal', null]]);
    expect(mock.requests.some((r) => r.kind === 'agent' && messagesText(r.body).includes('TOO-LATE'))).toBe(
      false,
    );
    writeFileSync(`${held}.go`, '');
    expect((await resultOf(item, 1)).result).toMatchObject({
      success: true,
      text: 'the approved command ran',
    });

    // The CLI first: the prompt leaves the screen, the terminal has nothing left to answer, and the tool runs once.
    const remote = join(env.dir, `ran-${randomUUID()}`);
    await deliver(item, 'e2', `please RUN-BASH ${remote}`);
    await waitFor('the second prompt', () => env.record(item)?.waiting?.detail.includes(remote), 120_000);
    const allow = await env.cli(['sessions', 'answer', '--work-item', item, 'allow']);
    expect(allow.code).toBe(0);
    await waitFor('the allowed command to run', () => existsSync(remote), 60_000);
    await waitFor('the prompt gone from the screen', () => !showsPrompt(), 60_000);
    expect((await resultOf(item, 2)).result).toMatchObject({ success: true });
    expect(answers()).toEqual([
      ['terminal', null],
      ['cli', 'allow'],
    ]);
  });

  it('allow --always adds the rule to the session: the same command runs again without a prompt', async () => {
    const item = 'github:octo/repo#1309';
    const marker = join(env.dir, `ran-${randomUUID()}`);
    expect(await deliver(item, 'e1', `please RUN-BASH ${marker}`, true)).toBe('started');
    await waitFor('the prompt', () => env.record(item)?.waiting?.reason === 'permission', 120_000);
    const bad = await env.cli(['sessions', 'answer', '--work-item', item, 'deny', '--always']);
    expect({ code: bad.code, stderr: bad.stderr }).toEqual({
      code: 2,
      stderr: expect.stringMatching(/--always goes with allow\n$/),
    });
    const allow = await env.cli(['sessions', 'answer', '--work-item', item, 'allow', '--always']);
    expect(allow.stderr).toBe('');
    expect(allow.stdout).toMatch(/^github:octo\/repo#1309: allowed for this session permission to use Bash/);
    await waitFor('the command to run', () => existsSync(marker), 60_000);
    expect((await resultOf(item, 1)).result).toMatchObject({ success: true });
    rmSync(marker);

    await deliver(item, 'e2', `again RUN-BASH ${marker}`);
    expect((await resultOf(item, 2)).result).toMatchObject({
      success: true,
      text: 'the approved command ran',
    });
    expect(existsSync(marker)).toBe(true);
    const waits = workItemEvents(env, item, 'wait.began').map((e) => e.data?.reason);
    expect(waits).toEqual(['permission']);
    expect(workItemEvents(env, item, 'permission.answered').map((e) => e.data?.always)).toEqual([true]);
  });

  it('a reply that ends on a question waits for its answer: waiting: question in every view; the next event is the answer', async () => {
    const item = 'github:octo/repo#1310';
    expect(await deliver(item, 'e1', 'EVT-ask: look at the issue', true)).toBe('started');
    const asked = await waitFor(
      'the question in the registry record',
      () => (env.record(item)?.waiting?.reason === 'question' ? env.record(item)?.waiting : null),
      120_000,
    );
    expect(asked.detail).toBe('Which branch should I target, `main` or `release`?');
    const list = await env.cli(['sessions', 'list', '--status', 'waiting']);
    expect(list.stdout.split('\n').find((line) => line.startsWith(`${item} `))).toContain(
      'waiting: question',
    );
    // the answer is the next event: delivered at the input box, not held as if a dialog showed
    await deliver(item, 'e2', 'EVT-answer: main, please');
    const answer = await resultOf(item, 2);
    expect(answer.prompt).toBe('EVT-answer: main, please');
    await waitFor('the wait to end', () => env.record(item)?.waiting === null, 60_000);
    expect(workItemEvents(env, item, 'wait.began').map((e) => e.data?.reason)).toEqual(['question']);
  });
});
