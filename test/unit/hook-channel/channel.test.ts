import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startHookChannel, type HookChannel } from '../../../src/hook-channel/server';
import type { HookReport } from '../../../src/hook-channel/report';
import * as protocol from '../../../src/hook-channel/protocol';
import { runHook } from '../../support/run-hook';
// The plugin's hook library, as the hooks run it (plain ESM, no build, no types).
// @ts-expect-error -- an .mjs file without a declaration
import { reportFor, sendReport } from '../../../plugin/hooks/lib.mjs';

const HOOKS = resolve(__dirname, '..', '..', '..', 'plugin', 'hooks');

function post(socketPath: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((done, fail) => {
    const req = request({ socketPath, path: protocol.REPORT_PATH, method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('error', fail);
    req.end(body);
  });
}

describe('the hook channel and the plugin hooks that report to it', () => {
  let dir: string;
  let channel: HookChannel;
  const received: { session: string; report: HookReport }[] = [];

  beforeAll(async () => {
    // A short directory: Unix socket paths are limited to ~107 bytes.
    dir = mkdtempSync(join(tmpdir(), 'tl-hc-'));
    channel = await startHookChannel({
      dir: join(dir, 'channel'),
      onReport: (session, report) => {
        received.push({ session, report });
      },
    });
  });

  afterAll(async () => {
    await channel?.close();
  });

  it('keeps the socket and the token files private to the worker user', async () => {
    const access = await channel.openSession('work-item/github:octo/repo#1', {
      workItem: 'github:octo/repo#1',
    });
    expect(statSync(channel.socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(access.tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'channel')).mode & 0o777).toBe(0o700);
    expect(access.env).toEqual({
      THE_LOOP_HOOK_SOCKET: channel.socketPath,
      THE_LOOP_HOOK_TOKEN_FILE: access.tokenFile,
      THE_LOOP_HOOK_LOG: access.logFile,
      THE_LOOP_HOOK_SPOOL: expect.stringMatching(/\/spool\/[0-9a-f]{24}\.jsonl$/) as unknown,
      THE_LOOP_WORK_ITEM: 'github:octo/repo#1',
    });
    // The token itself is never in the environment the pane gets.
    const token = readFileSync(access.tokenFile, 'utf8').trim();
    expect(JSON.stringify(access.env)).not.toContain(token);
  });

  it('hands each hook event to the callback as the session the token belongs to', async () => {
    const a = await channel.openSession('session-a');
    const b = await channel.openSession('session-b');
    const transcript = join(dir, 'transcript.jsonl');
    writeFileSync(
      transcript,
      [
        { type: 'user', message: { role: 'user', content: 'hello' } },
        { type: 'assistant', message: { id: 'm1', content: [{ type: 'text', text: 'an earlier reply' }] } },
        { type: 'assistant', message: { id: 'm2', content: [{ type: 'text', text: 'Done: ' }] } },
        { type: 'assistant', message: { id: 'm2', content: [{ type: 'tool_use', name: 'Bash' }] } },
        { type: 'assistant', message: { id: 'm2', content: [{ type: 'text', text: 'all tests pass.' }] } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n{"type":"assi', // a torn last line
    );
    const common = { session_id: 'c0ffee', cwd: dir, transcript_path: transcript };
    received.length = 0;
    for (const [access, input] of [
      [a, { ...common, hook_event_name: 'SessionStart', source: 'startup' }],
      [a, { ...common, hook_event_name: 'UserPromptSubmit', prompt: '/the-loop:work-on github:octo/repo#1' }],
      [
        b,
        {
          ...common,
          hook_event_name: 'Notification',
          notification_type: 'permission_prompt',
          message: 'Claude needs your permission to use Bash',
        },
      ],
      [a, { ...common, hook_event_name: 'Stop', stop_hook_active: false }],
    ] as const) {
      const result = await runHook('report-turn.mjs', input, access.env);
      expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    expect(received.map((r) => [r.session, r.report.event])).toEqual([
      ['session-a', 'ready'],
      ['session-a', 'turn-started'],
      ['session-b', 'waiting'],
      ['session-a', 'turn-ended'],
    ]);
    expect(received[1]?.report).toMatchObject({ prompt: '/the-loop:work-on github:octo/repo#1' });
    expect(received[2]?.report).toMatchObject({ reason: 'permission', harness_session_id: 'c0ffee' });
    expect(received[3]?.report).toMatchObject({
      last_assistant_message: 'Done: \nall tests pass.',
      transcript_path: transcript,
    });
  });

  it('refuses a report without a live token, and a malformed one', async () => {
    const access = await channel.openSession('session-c');
    const token = readFileSync(access.tokenFile, 'utf8').trim();
    const report = JSON.stringify({
      schema_version: 1,
      harness: 'claude',
      harness_session_id: null,
      cwd: null,
      at: new Date().toISOString(),
      event: 'ready',
      source: null,
    });
    const json = { 'content-type': 'application/json' };
    expect(await post(channel.socketPath, json, report)).toBe(401);
    expect(
      await post(channel.socketPath, { ...json, authorization: `Bearer ${'0'.repeat(64)}` }, report),
    ).toBe(401);
    expect(
      await post(channel.socketPath, { ...json, authorization: `Bearer ${token}` }, '{"event":"x"}'),
    ).toBe(400);
    expect(await post(channel.socketPath, { ...json, authorization: `Bearer ${token}` }, report)).toBe(204);
    await channel.closeSession('session-c');
    expect(await post(channel.socketPath, { ...json, authorization: `Bearer ${token}` }, report)).toBe(401);
  });

  it('keeps a session token across a worker restart, so panes opened before it report from the first moment', async () => {
    const before = await channel.openSession('session-d');
    const closedBefore = await channel.openSession('session-f');
    await channel.closeSession('session-f');
    await channel.close();
    channel = await startHookChannel({
      dir: join(dir, 'channel'),
      onReport: (session, report) => {
        received.push({ session, report });
      },
      readmit: ['session-d', 'session-f'],
    });
    received.length = 0;
    // admitted before the socket listened: no openSession needed for its first report
    await runHook('report-turn.mjs', { hook_event_name: 'SessionStart', session_id: 'x' }, before.env);
    await runHook('report-turn.mjs', { hook_event_name: 'SessionStart', session_id: 'y' }, closedBefore.env);
    expect(received.map((r) => r.session)).toEqual(['session-d']);
    const after = await channel.openSession('session-d');
    expect(after.tokenFile).toBe(before.tokenFile);
  });

  it('a report made while the worker was away past the retry window is spooled and read by the next worker', async () => {
    const away = await channel.openSession('session-g');
    await channel.close();
    const report = {
      ...reportFor({ hook_event_name: 'Stop', session_id: 'z' }),
      last_assistant_message: 'spooled',
    };
    expect(await sendReport(report, away.env, 1000, 300)).toEqual({ spooled: true });
    received.length = 0;
    channel = await startHookChannel({
      dir: join(dir, 'channel'),
      onReport: (session, r) => {
        received.push({ session, report: r });
      },
      readmit: ['session-g'],
    });
    // read before the new socket listened, and read once
    expect(received.map((r) => [r.session, r.report.event])).toEqual([['session-g', 'turn-ended']]);
    expect(received[0]?.report).toMatchObject({ last_assistant_message: 'spooled' });
    expect(readdirSync(join(dir, 'channel', 'spool'))).toEqual([]);
  });

  it('a report under way when the worker stops is handled and answered before the channel closes', async () => {
    let arrived: () => void = () => undefined;
    const reportArrived = new Promise<void>((r) => (arrived = r));
    let release: () => void = () => undefined;
    const released = new Promise<void>((r) => (release = r));
    const handled: string[] = [];
    const slow = await startHookChannel({
      dir: join(dir, 'slow'),
      onReport: async (_session, report) => {
        arrived();
        await released;
        handled.push(report.event);
      },
    });
    const access = await slow.openSession('session-e');
    const token = readFileSync(access.tokenFile, 'utf8').trim();
    const report = JSON.stringify({
      schema_version: 1,
      harness: 'claude',
      harness_session_id: 'x',
      cwd: null,
      at: new Date().toISOString(),
      event: 'turn-ended',
      last_assistant_message: 'done',
      transcript_path: null,
    });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const answered = post(slow.socketPath, headers, report);
    await reportArrived;
    const closed = slow.close();
    release();
    expect(await answered).toBe(204);
    await closed;
    expect(handled).toEqual(['turn-ended']);
  });

  it('a hook that cannot reach the worker exits 0 at once, prints nothing, and logs why', async () => {
    const logFile = join(dir, 'down.log');
    const env = {
      THE_LOOP_HOOK_SOCKET: join(dir, 'nobody-listens.sock'),
      THE_LOOP_HOOK_TOKEN_FILE: join(dir, 'missing.token'),
      THE_LOOP_HOOK_LOG: logFile,
    };
    writeFileSync(env.THE_LOOP_HOOK_TOKEN_FILE, `${'a'.repeat(64)}\n`, { mode: 0o600 });
    const result = await runHook('report-turn.mjs', { hook_event_name: 'Stop', session_id: 'x' }, env);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(logFile, 'utf8')).toMatch(/turn-ended: not reported: .*ENOENT/);
  });

  it('a hook whose worker accepts but never answers gives up, exits 0 and logs', async () => {
    const hung = createServer(() => undefined); // never answers
    const socketPath = join(dir, 'hung.sock');
    await new Promise<void>((listening) => hung.listen(socketPath, listening));
    try {
      const logFile = join(dir, 'hung.log');
      const tokenFile = join(dir, 'hung.token');
      writeFileSync(tokenFile, `${'b'.repeat(64)}\n`, { mode: 0o600 });
      const env = {
        THE_LOOP_HOOK_SOCKET: socketPath,
        THE_LOOP_HOOK_TOKEN_FILE: tokenFile,
        THE_LOOP_HOOK_LOG: logFile,
      };
      const result = await runHook(
        'report-turn.mjs',
        { hook_event_name: 'UserPromptSubmit', prompt: 'hi' },
        env,
      );
      expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(readFileSync(logFile, 'utf8')).toMatch(
        /turn-started: not reported: no answer from the worker within \d+ ms/,
      );
    } finally {
      hung.closeAllConnections();
      await new Promise<void>((closed) => hung.close(() => closed()));
    }
  });

  it('outside a hosted session the turn hooks do nothing', async () => {
    const result = await runHook('report-turn.mjs', { hook_event_name: 'SessionStart' }, {});
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('names the same environment variables as the plugin', async () => {
    const lib = (await import(join(HOOKS, 'lib.mjs'))) as Record<string, unknown>;
    expect(lib.SOCKET_ENV).toBe(protocol.HOOK_SOCKET_ENV);
    expect(lib.TOKEN_FILE_ENV).toBe(protocol.HOOK_TOKEN_FILE_ENV);
    expect(lib.LOG_ENV).toBe(protocol.HOOK_LOG_ENV);
    expect(lib.WORK_ITEM_ENV).toBe(protocol.WORK_ITEM_ENV);
    expect(lib.SPOOL_ENV).toBe(protocol.HOOK_SPOOL_ENV);
    expect(lib.REPORT_PATH).toBe(protocol.REPORT_PATH);
  });

  it('the link-pr hook runs link-pr --discover for THE_LOOP_WORK_ITEM, else for the session registered at the cwd', async () => {
    // A stand-in `the-loop` on PATH that records its argv and cwd, and lists two registered sessions.
    const bin = mkdtempSync(join(dir, 'bin-'));
    const calls = join(bin, 'calls.log');
    const work = join(bin, 'work');
    const elsewhere = join(bin, 'elsewhere');
    for (const d of [join(work, 'nested', 'src'), elsewhere, join(bin, 'unregistered')])
      mkdirSync(d, { recursive: true });
    const sessions = JSON.stringify([
      { work_item: 'github:octo/repo#1', cwd: work, checkout: null },
      { work_item: 'github:octo/repo#2', cwd: join(work, 'nested'), checkout: { path: elsewhere } },
    ]);
    writeFileSync(
      join(bin, 'the-loop'),
      `#!/bin/sh\necho "$PWD $*" >> '${calls}'\n[ "$2" = list ] && echo '${sessions}'\nexit 0\n`,
      { mode: 0o755 },
    );
    const push = (cwd: string) => ({ tool_name: 'Bash', tool_input: { command: 'git push' }, cwd });
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, THE_LOOP_HOOK_LOG: join(bin, 'hook.log') };
    const linked = () =>
      readFileSync(calls, 'utf8')
        .split('\n')
        .filter((l) => l.includes('link-pr'));

    expect(
      await runHook('link-pr.mjs', push(dir), { ...env, THE_LOOP_WORK_ITEM: 'github:octo/repo#7' }),
    ).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect(linked()).toEqual([`${dir} sessions link-pr --work-item github:octo/repo#7 --discover`]);

    await runHook('link-pr.mjs', push(join(work, 'nested', 'src')), env); // the deepest registered directory wins
    await runHook('link-pr.mjs', push(elsewhere), env); // a session's checkout counts too
    await runHook('link-pr.mjs', { tool_name: 'Bash', tool_input: { command: 'npm test' }, cwd: dir }, env);
    await runHook('link-pr.mjs', push(join(bin, 'unregistered')), env);
    expect(linked().map((l) => l.replace(/^\S+ /, ''))).toEqual([
      'sessions link-pr --work-item github:octo/repo#7 --discover',
      'sessions link-pr --work-item github:octo/repo#2 --discover',
      'sessions link-pr --work-item github:octo/repo#2 --discover',
    ]);
    expect(readFileSync(join(bin, 'hook.log'), 'utf8')).toContain(
      `link-pr: no work item for ${join(bin, 'unregistered')}`,
    );
  });

  it('links pull requests after a push or a PR creation only, judged by the tool input', async () => {
    const { opensPullRequest } = (await import(join(HOOKS, 'lib.mjs'))) as {
      opensPullRequest: (input: unknown) => boolean;
    };
    const bash = (command: string) => ({ tool_name: 'Bash', tool_input: { command } });
    for (const yes of [
      bash('git push -u origin HEAD'),
      bash('cd repo && git push'),
      bash('git -C /tmp/x push origin issue-1'),
      bash('gh pr create --fill'),
      { tool_name: 'mcp__github__create_pull_request', tool_input: {} },
    ])
      expect([yes, opensPullRequest(yes)]).toEqual([yes, true]);
    for (const no of [
      bash('git commit -m "push the fix"'),
      bash('git log --grep push'),
      bash('npm test'),
      { tool_name: 'Write', tool_input: { file_path: 'push.md' } },
      { tool_name: 'mcp__github__list_pull_requests', tool_input: {} },
    ])
      expect([no, opensPullRequest(no)]).toEqual([no, false]);
  });
});

describe("the Stop hook's report of the turn's reply", () => {
  // A transcript whose last reply is the previous turn's: the file is written behind Claude Code's own state.
  const transcript = join(mkdtempSync(join(tmpdir(), 'tl-stop-')), 'transcript.jsonl');
  writeFileSync(
    transcript,
    [
      { type: 'user', message: { role: 'user', content: 'the kickoff' } },
      { type: 'assistant', message: { id: 'm1', content: [{ type: 'text', text: 'reply to the kickoff' }] } },
      { type: 'user', message: { role: 'user', content: 'EVT-two' } },
    ]
      .map((entry) => JSON.stringify(entry))
      .join('\n') + '\n',
  );
  const stop = (extra: Record<string, unknown>) =>
    reportFor({ hook_event_name: 'Stop', session_id: 's', transcript_path: transcript, ...extra });

  it("takes Claude Code's own last_assistant_message over the transcript", () => {
    expect(stop({ last_assistant_message: 'reply to EVT-two' })).toMatchObject({
      event: 'turn-ended',
      last_assistant_message: 'reply to EVT-two',
      transcript_path: transcript,
    });
  });

  it('reads the transcript when Claude Code sends no text (an older version, or a reply that is only a tool call)', () => {
    expect(stop({})).toMatchObject({ last_assistant_message: 'reply to the kickoff' });
    expect(stop({ last_assistant_message: '  ' })).toMatchObject({
      last_assistant_message: 'reply to the kickoff',
    });
  });
});
