import { claudeSessionId } from '../../support/ids';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeGitHub } from '../../support/fake-github/server';
import { runningWorkItem } from '../../../src/temporal/work-items';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import { readPortable, updatePortable } from '../../../src/work-item/portable';
import {
  REPO_POLLER_WORKFLOW_TYPE,
  repoPollerWorkflowId,
  type RepoPollerInput,
} from '../../../src/workflows/repo-poller/workflow';
import { parseWorkItemRef, refSlug } from '../../../src/work-item/ref';
import { setupWorkItemEnv, treeSnapshot, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

const slugOf = (ref: string) => refSlug(parseWorkItemRef(ref));

// each test runs CLI processes one after another, each loading the Temporal client: many seconds apiece on a
// loaded machine, which took these past jest's default; every wait in here is for a condition
jest.setTimeout(600_000);

describe('sessions registry commands: register race, link-pr, list, reset, exit codes', () => {
  let env: WorkItemTestEnv;
  let github: FakeGitHub;

  beforeAll(async () => {
    github = new FakeGitHub();
    await github.start();
    github.token = 'ghp_test_token_value';
    github.repo('octo/repo');
    github.addIssue('octo/repo', { number: 33 });
    github.addIssue('octo/repo', { number: 60 });
    env = await setupWorkItemEnv({ yaml: { github: { apiUrl: github.url } } });
  });

  afterAll(async () => {
    await env.dispose();
    await github.stop();
  });

  const register = (ref: string, id: string, extra: string[] = []) =>
    env.cli([
      'sessions',
      'register',
      '--work-item',
      ref,
      '--harness',
      'claude',
      '--harness-session-id',
      id,
      '--cwd',
      env.dir,
      ...extra,
    ]);

  it('10 concurrent registrations: exactly one wins; with --force the last one replaces it', async () => {
    const ref = 'github:octo/repo#30';
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => register(ref, claudeSessionId(i))),
    );
    const winners = results.filter((r) => r.code === 0);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((r) => r.code !== 0)) {
      expect(loser.code).toBe(1);
      expect(loser.stderr).toMatch(
        /github:octo\/repo#30 already has an active session \(workflow work-item\/github:octo\/repo#30\): one work item ↔ one active session — --force replaces it/,
      );
    }
    const winnerId = /claude session ([0-9a-f-]{36})/.exec(winners[0]?.stdout ?? '')?.[1];
    expect(env.record(ref)?.harness_session_id).toBe(winnerId);

    const forced = await Promise.all(
      Array.from({ length: 10 }, (_, i) => register(ref, claudeSessionId(100 + i), ['--force'])),
    );
    expect(forced.some((r) => r.code === 0)).toBe(true);
    for (const r of forced.filter((f) => f.code !== 0))
      expect(r.stderr).toMatch(/replaced by a later --force/);
    const handle = await runningWorkItem(env.client, ref);
    const running = await handle?.describe();
    await waitFor(
      'the record of the surviving run',
      () => env.record(ref)?.run_id === running?.runId,
      180_000,
    );
    expect(env.record(ref)?.harness_session_id).toMatch(/^00000000-0000-4000-8000-0000000001\d\d$/);
    // exactly one run of the id is open
    const open: string[] = [];
    for await (const wf of env.client.workflow.list({
      query: `WorkflowId = "work-item/${ref}" AND ExecutionStatus = "Running"`,
    })) {
      open.push(wf.runId);
    }
    expect(open).toEqual([running?.runId]);
  });

  it('register: usage errors exit 2; a missing harness only warns', async () => {
    let r = await register('github:octo/repo', 'x');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/malformed work-item ref 'github:octo\/repo'/);
    r = await env.cli([
      'sessions',
      'register',
      '--work-item',
      'github:octo/repo#31',
      '--harness',
      'codex',
      '--harness-session-id',
      'x',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /'--harness <name>' argument 'codex' is invalid. Allowed choices are claude, cursor/,
    );
    r = await env.cli(['sessions', 'register', '--work-item', 'github:octo/repo#31', '--harness', 'claude']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--harness-session-id/);
    r = await register('github:octo/repo#31', claudeSessionId(31), ['--cwd', join(env.dir, 'missing')]);
    expect(r.code).toBe(2);
    r = await env.cli([
      'sessions',
      'register',
      '--work-item',
      'github:octo/repo#31',
      '--harness',
      'cursor',
      '--harness-session-id',
      'chat-1',
      '--cwd',
      env.dir,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /warning: the cursor harness \('cursor-agent'\) is not on PATH: events cannot be dispatched/,
    );
  });

  it('link-pr: exit 1 without a record, 2 for a malformed ref or a self-link, idempotent, labels once', async () => {
    const ref = 'github:octo/repo#32';
    let r = await env.cli(['sessions', 'link-pr', '--work-item', ref, '--pull-request', '16']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no session record on this machine — register the session first/);
    expect((await register(ref, claudeSessionId(32))).code).toBe(0);
    r = await env.cli(['sessions', 'link-pr', '--work-item', 'github:octo/repo#x', '--pull-request', '16']);
    expect(r.code).toBe(2);
    r = await env.cli(['sessions', 'link-pr', '--work-item', ref, '--pull-request', 'pr16']);
    expect(r.code).toBe(2);
    r = await env.cli(['sessions', 'link-pr', '--work-item', ref, '--pull-request', '#32']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot be linked to itself/);
    r = await env.cli(['sessions', 'link-pr', '--work-item', ref]);
    expect(r.code).toBe(2);

    const token = { GH_TOKEN: 'ghp_test_token_value' };
    const labelCalls = () =>
      github.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/labels')).length;
    r = await env.cli(['sessions', 'link-pr', '--work-item', ref, '--pull-request', '#33'], token);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`recorded github:octo/repo#33 as delivering ${ref}\n`);
    expect(labelCalls()).toBe(1);
    r = await env.cli(
      ['sessions', 'link-pr', '--work-item', ref, '--pull-request', 'github:octo/repo#33'],
      token,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/already recorded/);
    expect(labelCalls()).toBe(1);
    r = await env.cli(['sessions', 'link-pr', '--work-item', ref, '--pull-request', 'github:octo/other#7']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^note: /m);
    expect(env.record(ref)?.pull_requests).toEqual(['github:octo/repo#33', 'github:octo/other#7']);
    expect(
      github.requests.every((q) => !q.authorization || q.authorization.includes('ghp_test_token_value')),
    ).toBe(true);
  });

  it('list: usage errors exit 2', async () => {
    expect((await env.cli(['sessions', 'list', '--status', 'bogus'])).code).toBe(2);
    expect((await env.cli(['sessions', 'list', '--format', 'xml'])).code).toBe(2);
    const r = await env.cli(['sessions', 'list', '--registry-dir', join(env.dir, 'empty')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^the-loop: --registry-dir was removed: [^\n]*routing\.registryDir[^\n]*\n$/);
  });

  it('reset removes exactly what the doc lists; --dry-run changes nothing; bad selections exit 2', async () => {
    const ref = 'github:octo/repo#40';
    const started = await env.cli(['sessions', 'start', '--work-item', ref, '--no-comment']);
    expect(started.code).toBe(0);
    const checkout = env.record(ref)?.checkout?.path ?? '';
    expect(existsSync(checkout)).toBe(true);
    // the kickoff turn ends first: a turn under way changes files of its own (its task token, its result)
    await waitFor(
      'the kickoff turn to end',
      async () => {
        const s = await (await runningWorkItem(env.client, ref))?.query(statusQuery);
        return s?.delivered === 1 && s.queued === 0;
      },
      180_000,
    );
    await updatePortable(env.dirs, slugOf(ref), ref, (p) => ({
      ...p,
      poll: { last_seen: 'comment:1' },
      graph: { node: 'implement', at: new Date().toISOString() },
    }));
    const logFile = join(env.dirs.eventsDir, `${slugOf(ref)}.jsonl`);

    // bare reset, both selections, one bad ref: usage errors, nothing touched
    expect((await env.cli(['sessions', 'reset'])).code).toBe(2);
    expect((await env.cli(['sessions', 'reset', '--all', '--work-item', ref])).code).toBe(2);
    const before = treeSnapshot(env.dirs.stateRoot);
    let r = await env.cli(['sessions', 'reset', '--work-item', ref, '--work-item', 'github:octo/repo#bad']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing was reset/);

    r = await env.cli(['sessions', 'reset', '--work-item', ref, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${ref}: would end a live session`);
    expect(r.stdout).toContain(`${ref}: would reset — remove session, control, poll`);
    expect(r.stdout).toMatch(/would reset 1 work item$/m);
    expect(treeSnapshot(env.dirs.stateRoot)).toEqual(before);
    expect(await runningWorkItem(env.client, ref)).not.toBeNull();

    const logBefore = readFileSync(logFile, 'utf8');
    r = await env.cli(['sessions', 'reset', '--work-item', ref]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `${ref}: ended a live session`,
        `${ref}: reset — removed session, control, poll`,
        'reset 1 work item',
        '',
      ].join('\n'),
    );
    expect(await runningWorkItem(env.client, ref)).toBeNull();
    expect(env.record(ref)).toBeNull();
    // workspace.keepCheckoutOnClose defaults to true: only cleanup removes a checkout
    expect(existsSync(checkout)).toBe(true);
    const portable = readPortable(env.dirs, slugOf(ref));
    expect(portable).toMatchObject({ control: null, poll: null, graph: { node: 'implement' } });
    const logAfter = readFileSync(logFile, 'utf8');
    expect(logAfter.startsWith(logBefore)).toBe(true);
    expect(logAfter.trim().split('\n').pop()).toMatch(/"type":"session.reset"/);
    // the tmux session went through the normal close path: kept (keepSessionOnClose), its harness ended
    expect(
      env.tmux('display-message', '-p', '-t', `=${env.tmuxName(ref)}:`, '#{pane_dead}').stdout.trim(),
    ).toBe('1');
    // a closed record would still list; a reset one does not
    const list = await env.cli(['sessions', 'list', '--format', 'json']);
    expect((JSON.parse(list.stdout) as { work_item: string }[]).map((x) => x.work_item)).not.toContain(ref);
  });

  it('reset asks Temporal whether a poller runs on this task queue, and warns while one does', async () => {
    const workflowId = repoPollerWorkflowId('octo/repo');
    const input: RepoPollerInput = {
      repository: 'octo/repo',
      intervalMs: 3_600_000,
      hostQueue: 'nobody-polls',
    };
    const poller = await env.client.workflow.start(REPO_POLLER_WORKFLOW_TYPE, {
      taskQueue: env.taskQueue,
      workflowId,
      args: [input],
    });
    const listed = async () => {
      const query = `WorkflowId = '${workflowId}' AND ExecutionStatus = 'Running' AND TaskQueue = '${env.taskQueue}'`;
      for await (const _ of env.client.workflow.list({ query })) return true;
      return false;
    };
    try {
      await waitFor('the poller in the visibility store', listed, 180_000);
      const r = await env.cli(['sessions', 'reset', '--work-item', 'github:octo/repo#41', '--dry-run']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`warning: pollers are running (${workflowId}): they hold poll state`);
    } finally {
      await poller.terminate('test over');
    }
    await waitFor('the poller gone from the visibility store', async () => !(await listed()), 180_000);
    const r = await env.cli(['sessions', 'reset', '--work-item', 'github:octo/repo#41', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/pollers are running/);
  });

  it('reset --all covers every work item held here; warns when requireStartCommand is false', async () => {
    const other = await setupWorkItemEnv({ yaml: { routing: { requireStartCommand: false } } });
    try {
      for (const n of [1, 2]) {
        expect(
          (
            await other.cli([
              'sessions',
              'register',
              '--work-item',
              `github:octo/repo#${n}`,
              '--harness',
              'claude',
              '--harness-session-id',
              claudeSessionId(n),
              '--cwd',
              other.dir,
            ])
          ).code,
        ).toBe(0);
      }
      const r = await other.cli(['sessions', 'reset', '--all']);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/warning: routing.requireStartCommand is false/);
      expect(r.stdout).toMatch(/reset 2 work items$/m);
      const list = await other.cli(['sessions', 'list', '--format', 'json']);
      expect(JSON.parse(list.stdout)).toEqual([]);
    } finally {
      await other.dispose();
    }
  });
});
