import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { parse, stringify } from 'yaml';
import {
  spawnDevServer,
  stopProcess,
  waitForServer,
  type DevServerHandle,
} from '../../../src/service/dev-server';
import { runningWorkItem } from '../../../src/temporal/work-items';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import type { Waiting } from '../../../src/work-item/schemas';
import { freePort } from '../../support/dev-server';
import { testServer, uniqueQueue } from '../../support/temporal';
import { assertFreshBuild, spawnWorkerProcess, type WorkerProcess } from '../../support/worker-processes';
import { git, isNodeCommand, setupWorkItemEnv, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

// Every step is a CLI process, a kill or a restart followed by a wait for a condition; none is timed.
jest.setTimeout(600_000);

const ITEM = 'github:octo/repo#71';
const QUEUE = uniqueQueue('gate');

/** stderr lines beyond the warning that this world has no GitHub client for phase labels. */
function unexpected(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !/^warning: no phase label on /.test(line));
}

/**
 * A work item waiting at its human gate outlives its worker and its Temporal server (both SIGKILLed, the server
 * started again on the same SQLite file). Then it is reset, and started from a state directory of its own with a
 * workspace of its own: the node is re-derived from the work item's branch, and the gate still waits.
 */
describe('a gate survives the worker and the server; a reset item re-derives its node from the branch', () => {
  let env: WorkItemTestEnv;
  let server: DevServerHandle;
  let serverOptions: Parameters<typeof spawnDevServer>[0];
  let worker: WorkerProcess | null = null;
  let raw: Record<string, unknown>;
  const sockets: string[] = [];
  /** The work item's branch (its name carries a hash of the ref), read while the record exists. */
  let branch = '';

  /** The worker process's own state directory: the in-process worker of the env holds the hook socket in its own. */
  const workerState = () => join(env.dir, 'worker-state');

  async function startWorker(config: Record<string, unknown>, stateDir: string): Promise<void> {
    worker = spawnWorkerProcess({
      address: server.address,
      taskQueue: QUEUE,
      hostId: 'testhost',
      bundlePath: testServer().bundlePath,
      config,
      stateDir,
    });
    await worker.ready;
  }

  let gateWait: Waiting | undefined;

  async function killWorker(): Promise<void> {
    worker?.kill('SIGKILL');
    await worker?.exited;
    worker = null;
  }

  async function status() {
    const connection = await Connection.connect({ address: server.address });
    try {
      const handle = await runningWorkItem(new Client({ connection, namespace: 'default' }), ITEM);
      if (!handle) throw new Error(`no running session for ${ITEM}`);
      return await handle.query(statusQuery);
    } finally {
      await connection.close();
    }
  }

  /** The work item's spec, written into its checkout as the spec turn's agent would. */
  function writeSpec(): void {
    const checkout = env.record(ITEM)?.checkout?.path;
    if (!checkout) throw new Error('no checkout recorded');
    mkdirSync(join(checkout, 'docs', 'specs', '71'), { recursive: true });
    writeFileSync(join(checkout, 'docs', 'specs', '71', 'spec.md'), '# spec of 71\n');
  }

  beforeAll(async () => {
    assertFreshBuild();
    const [port, uiPort] = [await freePort(), await freePort()];
    env = await setupWorkItemEnv({ yaml: {} });
    serverOptions = {
      cliPath: testServer().cliPath,
      dbFile: join(env.dir, 'temporal', 'temporal.db'),
      logFile: join(env.dir, 'temporal', 'temporal.log'),
      port,
      uiPort,
      detached: false,
    };
    server = spawnDevServer(serverOptions);
    await waitForServer(server.address, server.pid, 120_000);
    // the CLI and the worker process talk to this test's own server, on a queue of their own
    raw = parse(readFileSync(env.configFile, 'utf8')) as Record<string, unknown>;
    raw.temporal = { address: server.address, taskQueue: QUEUE };
    writeFileSync(env.configFile, stringify(raw));
    sockets.push((raw.routing as { tmux: { socket: string } }).tmux.socket);
    await startWorker(raw, workerState());
  });

  afterAll(async () => {
    await killWorker();
    for (const socket of sockets) spawnSync('tmux', ['-L', socket, 'kill-server']);
    if (server) await stopProcess(server.pid, 5000);
    await env?.dispose();
  });

  it('waits at the gate with the spec checked in', async () => {
    const start = await env.cli(['sessions', 'start', '--work-item', ITEM, '--no-comment']);
    expect(start.stderr).toBe('');
    expect(start.code).toBe(0);
    // the spec node's turn: claude expanded the plugin's command and sent it to the model
    await env.agentCall((prompt) => isNodeCommand(prompt, ITEM, 'spec'));
    writeSpec();
    branch = env.record(ITEM)?.checkout?.branch ?? '';
    const done = await env.cli(['sessions', 'outcome', '--work-item', ITEM, 'success']);
    expect(unexpected(done.stderr)).toEqual([]);
    expect(done.code).toBe(0);
    expect(await status()).toMatchObject({ node: 'spec-approval', waitingAt: 'spec-approval' });
    // a gate is a wait for a person like any other: listed, in the inbox with how to answer it
    gateWait = await waitFor('the gate in the registry record', () => env.record(ITEM)?.waiting, 180_000);
    expect(gateWait).toMatchObject({
      reason: 'gate',
      detail: expect.stringMatching(/^waiting at spec-approval: /),
    });
    const list = await env.cli(['sessions', 'list', '--status', 'waiting', '--format', 'json']);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ work_item: ITEM, waiting: gateWait }),
    ]);
    const inbox = await env.cli(['inbox', '--format', 'json']);
    expect(JSON.parse(inbox.stdout)).toEqual([
      expect.objectContaining({
        session: ITEM,
        reason: 'gate',
        since: gateWait.since,
        next: `the-loop sessions answer --work-item ${ITEM} approve|reject`,
      }),
    ]);
  });

  it('the worker and the server killed (SIGKILL) and started again: the gate still waits', async () => {
    await killWorker();
    process.kill(server.pid, 'SIGKILL');
    await waitFor(
      'the server to die',
      () => {
        try {
          process.kill(server.pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      180_000,
    );
    // the same database file, the same port
    server = spawnDevServer(serverOptions);
    await waitForServer(server.address, server.pid, 120_000);
    await startWorker(raw, workerState());

    expect(await status()).toMatchObject({ node: 'spec-approval', waitingAt: 'spec-approval' });
    const start = await env.cli(['sessions', 'start', '--work-item', ITEM, '--no-comment']);
    expect(start.code).toBe(0);
    expect(start.stdout).toMatch(/^waiting at spec-approval: /);
    const list = await env.cli(['sessions', 'list', '--format', 'json']);
    // the same wait, since the same moment: the crash did not make it a new one
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ work_item: ITEM, node: 'spec-approval', waiting: gateWait }),
    ]);
    expect((await status()).waitingFor).toEqual(gateWait);
  });

  it('reset, then a start from another state directory: the node is re-derived from the branch', async () => {
    const reset = await env.cli(['sessions', 'reset', '--work-item', ITEM]);
    expect(reset.code).toBe(0);
    await killWorker();

    // another machine, as far as the-loop can tell: its own state root (workspaces, registry, portable
    // records), state directory and tmux server; only the repository's origin is shared
    const other = join(env.dir, 'other');
    const socket = `${sockets[0] ?? 'tl'}-other`;
    sockets.push(socket);
    const otherRaw = { ...raw, state: { root: join(other, 'root') }, routing: { tmux: { socket } } };
    const otherConfig = join(other, 'the-loop.yaml');
    mkdirSync(join(other, 'state'), { recursive: true });
    writeFileSync(otherConfig, stringify(otherRaw));
    await startWorker(otherRaw, join(other, 'state'));
    const onOther = { THE_LOOP_CONFIG: otherConfig, THE_LOOP_STATE_DIR: join(other, 'state') };

    const start = await env.cli(['sessions', 'start', '--work-item', ITEM, '--no-comment'], onOther);
    expect(start.stderr).toBe('');
    expect(start.code).toBe(0);
    expect(start.stdout).toMatch(/^started github:octo\/repo#71 in tmux /);
    expect(start.stdout).toMatch(/^waiting at spec-approval: /m);
    expect(await status()).toMatchObject({ node: 'spec-approval', waitingAt: 'spec-approval' });

    // the gate answered there moves on to implement, whose turn reaches the new pane
    const answer = await env.cli(['sessions', 'answer', '--work-item', ITEM, 'approve'], onOther);
    expect(unexpected(answer.stderr)).toEqual([]);
    expect(answer.stdout).toContain(`${ITEM}: approved spec-approval → implement`);
    // the implement turn reached the model, once, from the claude in the new pane (the first pane's claude ended
    // with the reset): a new conversation in the other machine's checkout
    const implement = await env.agentCall((prompt) => isNodeCommand(prompt, ITEM, 'implement'));
    expect(env.prompts().filter((prompt) => isNodeCommand(prompt, ITEM, 'implement'))).toHaveLength(1);
    expect(JSON.stringify(implement.body)).not.toContain('--phase spec</command-args>');
    const pane = spawnSync(
      'tmux',
      ['-L', socket, 'display-message', '-p', '-t', `=${env.tmuxName(ITEM)}:`, '#{pane_pid}'],
      { encoding: 'utf8' },
    ).stdout.trim();
    expect(readlinkSync(`/proc/${pane}/cwd`).startsWith(join(other, 'root'))).toBe(true);
    const state = git(env.origin, 'show', `${branch}:docs/specs/71/work-item-state.json`);
    expect(JSON.parse(state)).toMatchObject({ node: 'implement', previous: 'spec-approval' });
  });
});
