// The project against a real Temporal cluster (not the dev server): PostgreSQL, four server services, two
// `the-loop worker` processes as two hosts. Every wait is for a condition (turns ended on disk), never a duration.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { sessionsRoot } from '../../../src/session/paths';
import { runCli, BIN } from '../../support/cli';
import { startTemporalCluster, type TemporalCluster } from '../../support/cluster/temporal-cluster';
import {
  claudeEnv,
  realClaudeBin,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import { endedIterations, harnessRuns, liveGroup, sessionEvents } from '../../support/recovery';
import { after, scriptGoalLoops } from '../../support/scripted-agent';
import { waitFor } from '../../support/wait';
import { assertFreshBuild } from '../../support/worker-processes';

const TASK_QUEUE = 'cluster-e2e';
const HEARTBEAT_TIMEOUT = '5s';
const SESSIONS_PER_HOST = 2;
const PHASE_MS = 5 * 60_000;
// Above the waits of each case (a phase of turns, then a visibility query): not the suite's default 120 s.
jest.setTimeout(3 * PHASE_MS);

interface Host {
  id: string;
  configFile: string;
  stateDir: string;
  cwd: string;
  sessions: string[];
  worker: ChildProcess | null;
}

describe('on a Temporal cluster (PostgreSQL, frontend/history/matching/worker), two hosts', () => {
  let cluster: TemporalCluster;
  let connection: Connection;
  let client: Client;
  let root: string;
  let mock: MockAnthropic | undefined;
  const saved = { ...process.env };
  const hosts: Host[] = [];

  const hostQueue = (host: Host) => `${TASK_QUEUE}.host.${host.id}`;
  const sessionDir = (host: Host, id: string) => join(sessionsRoot(host.cwd), id);
  const ended = (host: Host, id: string) => endedIterations(sessionEvents(sessionDir(host, id)));
  const all = () => hosts.flatMap((host) => host.sessions.map((id) => ({ host, id })));

  async function startWorker(host: Host): Promise<void> {
    const readyFile = join(host.stateDir, 'worker-ready.json');
    if (existsSync(readyFile)) writeFileSync(readyFile, '');
    const log = openSync(join(root, `worker-${host.id}.log`), 'a');
    const child = spawn(process.execPath, [BIN, 'worker', '--ready-file', readyFile], {
      env: { ...process.env, THE_LOOP_CONFIG: host.configFile, THE_LOOP_STATE_DIR: host.stateDir },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    host.worker = child;
    await waitFor(
      `host ${host.id}'s worker to poll`,
      () => {
        if (child.exitCode !== null)
          throw new Error(
            `host ${host.id}'s worker exited (code ${child.exitCode}); the end of its log:\n${readFileSync(join(root, `worker-${host.id}.log`), 'utf8').slice(-4000)}`,
          );
        return existsSync(readyFile) && readFileSync(readyFile, 'utf8').includes(hostQueue(host));
      },
      180_000,
    );
  }

  async function killWorker(host: Host): Promise<void> {
    const child = host.worker;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await gone;
    host.worker = null;
  }

  /** Waits until every given session has ended `turns` more turns than it had when this was called. */
  async function advance(sessions: { host: Host; id: string }[], turns: number, what: string): Promise<void> {
    // Vacuous progress would hide a failure to start the sessions.
    expect(sessions.length).toBeGreaterThan(0);
    const before = new Map(sessions.map((s) => [s.id, ended(s.host, s.id).length]));
    await waitFor(
      what,
      () => sessions.every((s) => ended(s.host, s.id).length >= (before.get(s.id) ?? 0) + turns),
      PHASE_MS,
      500,
    );
  }

  /** Every turn a session started has ended, in order, none twice, and none was given up. */
  function expectNoLostTurn(host: Host, id: string, allowedAbandoned: number[] = []): void {
    const events = sessionEvents(sessionDir(host, id));
    const endedOnes = endedIterations(events);
    expect(endedOnes).toEqual(endedOnes.map((_n, i) => i + 1));
    const abandoned = events.filter((e) => e.type === 'iteration_abandoned').map((e) => e.iteration);
    expect(abandoned.filter((n) => !allowedAbandoned.includes(n ?? -1))).toEqual([]);
  }

  beforeAll(async () => {
    assertFreshBuild();
    root = mkdtempSync(join(tmpdir(), 'cluster-e2e-'));
    cluster = await startTemporalCluster(join(root, 'cluster'), {
      onProgress: (line) => process.stderr.write(`${line}\n`),
    });
    connection = await Connection.connect({ address: cluster.address });
    client = new Client({ connection, namespace: cluster.namespace });
    // The workers run the real claude against this mock (they inherit this process's environment). Every turn takes
    // the model a little while, so that a kill or a restart finds turns running.
    mock = await startMockAnthropic();
    scriptGoalLoops(mock, () => ({ until: after(1500), costUsd: 0.01 }));
    Object.assign(process.env, claudeEnv(mock).env);
    for (const id of ['hostA', 'hostB']) {
      const dir = join(root, id);
      const host: Host = {
        id,
        configFile: join(dir, 'the-loop.yaml'),
        stateDir: join(dir, 'state'),
        cwd: join(dir, 'work'),
        sessions: [],
        worker: null,
      };
      mkdirSync(host.cwd, { recursive: true });
      writeFileSync(
        host.configFile,
        [
          'temporal:',
          `  address: ${cluster.address}`,
          `  taskQueue: ${TASK_QUEUE}`,
          'worker:',
          `  hostId: ${id}`,
          `  heartbeatTimeout: ${HEARTBEAT_TIMEOUT}`,
          'harness:',
          '  claude:',
          `    command: ${realClaudeBin()}`,
          '',
        ].join('\n'),
      );
      hosts.push(host);
    }
    await Promise.all(hosts.map(startWorker));
  }, 30 * 60_000);

  afterAll(async () => {
    for (const host of hosts) await killWorker(host);
    // Harness runs a killed worker left behind.
    for (const { host, id } of all()) {
      for (const run of harnessRuns(sessionDir(host, id))) {
        if (liveGroup(run.pgid).length > 0) process.kill(-run.pgid, 'SIGKILL');
      }
    }
    await connection?.close();
    await cluster?.stop();
    await mock?.close();
    process.env = saved;
  }, 120_000);

  it('sessions started from each host run their turns on that host queue, and the Loop* search attributes are indexed', async () => {
    for (const host of hosts) {
      for (let i = 1; i <= SESSIONS_PER_HOST; i++) {
        const result = await runCli(
          [
            'run',
            '--goal',
            `${host.id} session ${i}`,
            '--cwd',
            host.cwd,
            '--detach',
            '--max-iterations',
            '500',
          ],
          { env: { THE_LOOP_CONFIG: host.configFile }, name: 'loopy' },
        );
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        host.sessions.push(result.stdout.trim());
      }
    }
    await advance(all(), 2, 'two turns ended in every session');

    for (const { host, id } of all()) {
      const history = await client.workflow.getHandle(id).fetchHistory();
      const turns = (history.events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runIteration',
      );
      expect(turns.length).toBeGreaterThanOrEqual(2);
      for (const turn of turns) {
        expect(turn.activityTaskScheduledEventAttributes?.taskQueue?.name).toBe(hostQueue(host));
      }
      // The worker that ran them is this host's process (the SDK's identity is pid@hostname).
      const identities = new Set(
        (history.events ?? []).flatMap((e) => e.activityTaskStartedEventAttributes?.identity ?? []),
      );
      expect([...identities].map((identity) => identity.split('@')[0])).toEqual([String(host.worker?.pid)]);
    }

    // Visibility is written asynchronously: wait for the query to answer exactly these sessions.
    const expected = all()
      .map((s) => s.id)
      .sort();
    const listQuery = `LoopKind = 'goal' AND LoopHarness = 'claude' AND LoopStatus = 'running' AND ExecutionStatus = 'Running'`;
    const listed = async () => {
      const ids: string[] = [];
      for await (const execution of client.workflow.list({ query: listQuery }))
        ids.push(execution.workflowId);
      return ids.sort();
    };
    await waitFor(
      'the Loop* query to list every session',
      async () => (await listed()).join() === expected.join(),
      60_000,
      500,
    );
  });

  let interrupted = new Map<string, number>();

  it("killing host A's worker pauses only A's sessions while B's go on", async () => {
    const [a, b] = hosts as [Host, Host];
    expect(a.sessions).toHaveLength(SESSIONS_PER_HOST);
    expect(b.sessions).toHaveLength(SESSIONS_PER_HOST);
    // Kill while every A session has a turn running: its harness process is alive (events.jsonl says it late).
    const liveTurns = () =>
      a.sessions.map((id) => {
        const run = harnessRuns(sessionDir(a, id)).find((r) => liveGroup(r.pgid).length > 0);
        return run ? [id, Number(/^(\d{4})_/.exec(run.iteration)?.[1])] : null;
      });
    const running = await waitFor(
      'a turn running in every A session',
      () => {
        const turns = liveTurns();
        return turns.every((t) => t !== null) && (turns as [string, number][]);
      },
      PHASE_MS,
      50,
    );
    await killWorker(a);
    interrupted = new Map(running);
    const frozen = new Map(a.sessions.map((id) => [id, ended(a, id).length]));

    await advance(
      b.sessions.map((id) => ({ host: b, id })),
      3,
      "three more turns in B's sessions with A down",
    );
    for (const id of a.sessions) {
      expect(ended(a, id).length).toBe(frozen.get(id));
      expect((await client.workflow.getHandle(id).describe()).status.name).toBe('RUNNING');
    }
  });

  it("A's sessions resume when A returns, the interrupted turn recovered or salvaged", async () => {
    const a = hosts[0] as Host;
    await startWorker(a);
    await advance(
      a.sessions.map((id) => ({ host: a, id })),
      2,
      "two more turns in A's sessions after A returned",
    );
    for (const id of a.sessions) {
      const n = interrupted.get(id) as number;
      const events = sessionEvents(sessionDir(a, id)).filter((e) => e.iteration === n);
      const end = events.find((e) =>
        ['iteration_finished', 'iteration_recovered', 'iteration_abandoned'].includes(e.type),
      );
      expect(['iteration_recovered', 'iteration_abandoned']).toContain(end?.type);
      if (end?.type === 'iteration_abandoned') {
        const iterationDir = readdirSync(join(sessionDir(a, id), 'iterations')).find((d) =>
          d.startsWith(String(n).padStart(4, '0')),
        );
        expect(existsSync(join(sessionDir(a, id), 'iterations', iterationDir ?? '-', 'salvage.json'))).toBe(
          true,
        );
      }
      expectNoLostTurn(a, id, [n]);
    }
  });

  it('restarting the history service, then matching, loses no turn', async () => {
    await cluster.restartService('history');
    await advance(all(), 2, 'two more turns everywhere after history restarted');
    await cluster.restartService('matching');
    await advance(all(), 2, 'two more turns everywhere after matching restarted');
    for (const { host, id } of all()) expectNoLostTurn(host, id, [interrupted.get(id) ?? -1]);
  });

  it('restarting PostgreSQL loses no turn; the sessions then stop cleanly', async () => {
    await cluster.postgres.restart();
    await advance(all(), 2, 'two more turns everywhere after PostgreSQL restarted');
    for (const { host, id } of all()) {
      const stop = await runCli(['stop', id], {
        env: { THE_LOOP_CONFIG: host.configFile },
        cwd: host.cwd,
        name: 'loopy',
      });
      expect(stop.code).toBe(0);
    }
    for (const { host, id } of all()) {
      const result = (await client.workflow.getHandle(id).result()) as { stop: { kind: string } };
      expect(result.stop.kind).toBe('user');
      expectNoLostTurn(host, id, [interrupted.get(id) ?? -1]);
    }
  });
});
