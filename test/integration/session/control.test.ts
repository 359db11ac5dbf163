import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import { isProcessGroupAlive } from '../../../src/harness/process-group';
import { sessionPaths, iterationPaths } from '../../../src/session/paths';
import type { TheLoopConfig } from '../../../src/config/schema';
import {
  pauseSignal,
  resumeSignal,
  statusQuery,
  stopSignal,
} from '../../../src/workflows/goal-session/messages';
import { runCli } from '../../support/cli';
import {
  claudeEnv,
  realClaudeBin,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import { forever, scriptGoalLoops, untilFile, type AgentPlay } from '../../support/scripted-agent';
import { processesOfSession } from '../../support/session-processes';
import {
  startTestWorker,
  testClient,
  testConfig,
  testServer,
  uniqueQueue,
  type TestWorker,
} from '../../support/temporal';
import { staysTrue, waitFor } from '../../support/wait';

// generous: each test waits on conditions that a loaded machine reaches slowly, never on a time bound
jest.setTimeout(300_000);

/**
 * Driven by the REAL claude CLI against the mock Anthropic API (turns scripted by iteration number). The worker runs
 * in this process, so the harness inherits this process's environment: the mock's URL, a dummy key and a scratch HOME
 * that allows Bash (the stop test runs a shell command).
 */
describe('session control: pause, resume, stop, signals without a worker, user updates', () => {
  let client: Client;
  let connection: Connection;
  let worker: TestWorker | null = null;
  let config: TheLoopConfig;
  let mock: MockAnthropic;
  const saved = { ...process.env };
  /** Every turn plays `fallback`, except those `byIteration` names. */
  const script = (fallback: AgentPlay, byIteration: Record<number, AgentPlay> = {}) =>
    scriptGoalLoops(mock, (turn) => byIteration[turn.iteration] ?? fallback);

  beforeAll(async () => {
    mock = await startMockAnthropic();
    Object.assign(process.env, claudeEnv(mock, { allowedTools: ['Bash'] }).env);
    ({ client, connection } = await testClient());
  });
  beforeEach(() => {
    const base = testConfig({
      harness: { claude: { command: realClaudeBin() } },
      worker: { heartbeatTimeout: '10s', hostId: 'ctl' },
    });
    config = { ...base, temporal: { ...base.temporal, taskQueue: uniqueQueue('ctl') } };
  });
  afterEach(async () => {
    await worker?.shutdown();
    worker = null;
  });
  afterAll(async () => {
    await connection.close();
    await mock.close();
    process.env = saved;
  });

  const newInput = (goal: string, maxIterations = 5) =>
    buildSessionInput(config, {
      goal,
      cwd: mkdtempSync(join(tmpdir(), 'loopy-ctl-')),
      harness: 'claude',
      maxIterations,
    });
  /** A file that releases a turn scripted with untilFile, created when the test says so. */
  const newGate = () => join(mkdtempSync(join(tmpdir(), 'loopy-ctl-gate-')), 'release');
  const startWorker = async () => {
    worker = await startTestWorker({ config, hostId: 'ctl', taskQueue: config.temporal.taskQueue });
  };

  it('pause lets the running iteration finish and starts nothing until resume', async () => {
    await startWorker();
    const gate = newGate();
    script({}, { 1: { until: untilFile(gate) } });
    const input = newInput('pause me', 3);
    const handle = await startGoalSession(client, input);
    await waitFor(
      'iteration 1 to run',
      async () => (await handle.query(statusQuery)).dispatch.active_iteration?.number === 1,
      60_000,
    );
    // iteration 1 cannot end before the pause is in the workflow's history: the gate opens after the signal
    await handle.signal(pauseSignal);
    writeFileSync(gate, '');
    const paused = await waitFor(
      'the pause to settle',
      async () => {
        const s = await handle.query(statusQuery);
        return s.status === 'paused' && s.history.length >= 1 ? s : null;
      },
      60_000,
    );
    expect(paused.history).toHaveLength(1);
    expect(paused.history[0]?.success).toBe(true);
    await staysTrue(
      'the session paused at iteration 1, iteration 2 not started',
      async () => {
        const still = await handle.query(statusQuery);
        return (
          still.iteration === 1 &&
          still.status === 'paused' &&
          !existsSync(iterationPaths(input.sessionDir, 2, 'worker').dir)
        );
      },
      2000,
    );
    await handle.signal(resumeSignal);
    const result = await handle.result();
    expect(result.iterations).toBe(3);
    expect(result.stop.kind).toBe('max_iterations');
  });

  it('stop during an iteration kills the harness process group and records the user reason', async () => {
    await startWorker();
    // the harness would run for 10 minutes: its group gone well before that can only be the stop's doing
    const input = newInput('stop me');
    const toolPidFile = join(input.cwd, 'tool.pid');
    script({ bash: `echo $$ > ${toolPidFile}.tmp && mv ${toolPidFile}.tmp ${toolPidFile} && sleep 600` });
    const handle = await startGoalSession(client, input);
    const processFile = await waitFor(
      'the harness to start',
      () => {
        const root = iterationPaths(input.sessionDir, 1, 'planner').harnessOutputRoot;
        const runId = existsSync(join(input.sessionDir, 'iterations', '0001_planner', 'harness_run_id.txt'))
          ? readFileSync(join(input.sessionDir, 'iterations', '0001_planner', 'harness_run_id.txt'), 'utf8')
          : null;
        const file = runId ? join(root, runId, 'process.json') : null;
        return file && existsSync(file) ? file : null;
      },
      60_000,
    );
    const { pgid } = JSON.parse(readFileSync(processFile, 'utf8')) as { pgid: number };
    // The real temporal CLI finds the running session by its search attributes.
    const listed = await waitFor(
      'the session in a visibility query',
      () => {
        const out = execFileSync(
          testServer().cliPath,
          [
            'workflow',
            'list',
            '--address',
            testServer().address,
            '--query',
            `LoopKind="goal" AND LoopStatus="running" AND LoopHarness="claude"`,
          ],
          { encoding: 'utf8' },
        );
        return out.includes(input.sessionId) ? out : null;
      },
      60_000,
    );
    expect(listed).toContain('goalSession');
    expect(isProcessGroupAlive(pgid)).toBe(true);
    // The Bash tool's shell: the real claude runs it in a process group of its own.
    const toolPid = Number(
      await waitFor(
        'the tool process',
        () => existsSync(toolPidFile) && readFileSync(toolPidFile, 'utf8'),
        60_000,
      ),
    );
    expect(isProcessGroupAlive(toolPid)).toBe(true);
    await handle.signal(stopSignal, { reason: 'changed my mind', by: 'user' });
    await waitFor('the process group to die', () => !isProcessGroupAlive(pgid), 90_000);
    await waitFor('the tool process to die', () => !isProcessGroupAlive(toolPid), 90_000);
    expect(processesOfSession(input.sessionDir)).toEqual([]);
    const result = await handle.result();
    expect(result.stop).toEqual({ kind: 'user', reason: 'changed my mind' });
    const state = JSON.parse(readFileSync(sessionPaths(input.sessionDir).state, 'utf8')) as {
      stop: { kind: string };
    };
    expect(state.stop.kind).toBe('user');
  });

  it('a cancellation from Temporal (the Web UI, `temporal workflow cancel`) is a stop: harness killed, final state written', async () => {
    await startWorker();
    script({ until: forever });
    const input = newInput('cancel me from the Web UI');
    const handle = await startGoalSession(client, input);
    const processFile = await waitFor(
      'the harness to start',
      () => {
        const root = iterationPaths(input.sessionDir, 1, 'planner').harnessOutputRoot;
        const runs = existsSync(root) ? readdirSync(root) : [];
        const file = runs[0] ? join(root, runs[0], 'process.json') : null;
        return file && existsSync(file) ? file : null;
      },
      60_000,
    );
    const { pgid } = JSON.parse(readFileSync(processFile, 'utf8')) as { pgid: number };
    await handle.cancel();
    const result = await handle.result();
    expect(result.stop).toEqual({
      kind: 'user',
      reason: 'cancelled through Temporal (a workflow cancellation request)',
    });
    expect(result.iterations).toBe(1);
    expect(isProcessGroupAlive(pgid)).toBe(false);
    const state = JSON.parse(readFileSync(sessionPaths(input.sessionDir).state, 'utf8')) as {
      status: string;
      stop: { kind: string; requested_by: string };
      history: unknown[];
    };
    expect(state).toMatchObject({ status: 'stopped', stop: { kind: 'user', requested_by: 'temporal' } });
    expect(state.history).toHaveLength(1);
    const control = JSON.parse(readFileSync(sessionPaths(input.sessionDir).control, 'utf8')) as {
      state: string;
    };
    expect(control.state).toBe('stopped');
  });

  it('a signal sent while no worker runs takes effect once a worker starts', async () => {
    script({});
    const input = newInput('no worker yet');
    const handle = await startGoalSession(client, input);
    await handle.signal(pauseSignal);
    await startWorker();
    const state = await waitFor(
      'the paused state',
      async () => {
        const s = await handle.query(statusQuery);
        return s.status === 'paused' ? s : null;
      },
      60_000,
    );
    expect(state.iteration).toBe(0);
    await handle.signal(stopSignal, { reason: 'never mind' });
    const result = await handle.result();
    expect(result).toMatchObject({ iterations: 0, stop: { kind: 'user', reason: 'never mind' } });
  });

  it('loopy update lands in the next prompt.txt; the file is cleared only after project_state/ reflects it', async () => {
    await startWorker();
    // each turn waits for its gate, so the update is sent while iteration 1 surely still runs
    const [gate1, gate2] = [newGate(), newGate()];
    script({}, { 1: { until: untilFile(gate1) }, 2: { until: untilFile(gate2) } });
    const input = newInput('take updates', 3);
    const handle = await startGoalSession(client, input);
    await waitFor(
      'iteration 1 to run',
      async () => (await handle.query(statusQuery)).dispatch.active_iteration?.number === 1,
      60_000,
    );
    const cliEnv = { TEMPORAL_ADDRESS: testServer().address, THE_LOOP_CONFIG: '' };
    const update = await runCli(['update', input.sessionId, 'Please also add a --help flag'], {
      env: cliEnv,
      cwd: input.cwd,
      name: 'loopy',
    });
    expect(update.stderr).toBe('');
    expect(update.code).toBe(0);
    writeFileSync(gate1, '');
    const paths = sessionPaths(input.sessionDir);
    const ledger = join(paths.projectStateDir, 'user_requests.md');
    // While iteration 2 runs, the request is in its prompt, still in the inbox, and not yet in project_state/.
    await waitFor(
      'iteration 2 to run',
      async () => (await handle.query(statusQuery)).dispatch.active_iteration?.number === 2,
      60_000,
    );
    // The workflow dispatches before the activity writes prompt.txt.
    await waitFor(
      'prompt.txt of iteration 2',
      () => existsSync(iterationPaths(input.sessionDir, 2, 'worker').prompt),
      60_000,
    );
    expect(readFileSync(iterationPaths(input.sessionDir, 2, 'worker').prompt, 'utf8')).toContain(
      'Please also add a --help flag',
    );
    expect(readFileSync(iterationPaths(input.sessionDir, 1, 'planner').prompt, 'utf8')).not.toContain(
      '--help flag',
    );
    expect(readFileSync(paths.updatesFromUser, 'utf8')).toContain('Please also add a --help flag');
    expect(existsSync(ledger)).toBe(false);
    writeFileSync(gate2, '');
    await waitFor(
      'iteration 2 to finish',
      async () => (await handle.query(statusQuery)).history.length >= 2,
      60_000,
    );
    expect(readFileSync(ledger, 'utf8')).toContain('Please also add a --help flag');
    expect(readFileSync(paths.updatesFromUser, 'utf8')).toBe('');
    await handle.result();
    const events = readFileSync(paths.events, 'utf8');
    expect(events).toContain('"type":"user_update"');
  });
});
