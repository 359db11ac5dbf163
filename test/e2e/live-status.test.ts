// `loopy status` of a running session, as a user's shell runs it: from the start-up snapshot, which holds no Temporal
// client, the live state comes from the worker of the state directory over its socket. Where no worker of that
// state directory runs, the snapshot hands over to the script, which asks Temporal through its own client.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { buildSessionInput } from '../../src/cli/session-input';
import { startGoalSession } from '../../src/cli/start-session';
import { configSchema } from '../../src/config/schema';
import { readJsonIfExists } from '../../src/session/json-file';
import { sessionStateFileSchema } from '../../src/session/schemas/state';
import { startTestWorker, testClient, testServer, uniqueQueue, type TestWorker } from '../support/temporal';
import { runProcess } from '../support/run-process';
import { waitFor } from '../support/wait';

const LOOPY = join(__dirname, '..', '..', 'bin', 'loopy');

/** The environment without TEMPORAL_* (which would send the CLI to envconfig, and the snapshot to the script). */
function envWithoutTemporal(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('TEMPORAL_')),
  );
  return { ...env, NODE_OPTIONS: '', THE_LOOP_SNAPSHOT: '', ...extra };
}

describe('loopy status of a running session', () => {
  let worker: TestWorker;
  let temporal: { client: Client; connection: Connection };
  let cwd: string;
  let configFile: string;
  let sessionId: string;

  beforeAll(async () => {
    const taskQueue = uniqueQueue('live-status');
    const config = configSchema.parse({ temporal: { taskQueue }, worker: { hostId: 'livehost' } });
    worker = await startTestWorker({ config, taskQueue, hostId: 'livehost' });
    temporal = await testClient();
    cwd = mkdtempSync(join(tmpdir(), 'the-loop-live-status-'));
    configFile = join(cwd, 'the-loop.yaml');
    writeFileSync(
      configFile,
      `temporal:\n  address: ${testServer().address}\n  taskQueue: ${taskQueue}\nworker:\n  hostId: livehost\n`,
    );
    const input = buildSessionInput(config, {
      goal: 'stay running',
      cwd,
      harness: 'command',
      harnessCommand: 'sleep 600',
      maxIterations: 1,
    });
    sessionId = input.sessionId;
    await startGoalSession(temporal.client, input);
    await waitFor('the first turn to run', () => {
      const state = readJsonIfExists(join(input.sessionDir, 'state.json'), sessionStateFileSchema);
      return state?.status === 'running' && state.iteration === 1 ? state : null;
    });
  });
  afterAll(async () => {
    await temporal.client.workflow.getHandle(sessionId).terminate('test done');
    await temporal.connection.close();
    await worker.shutdown();
  });

  /** Under `sh -x`: the node commands the launcher ran, and what the command printed. */
  async function status(stateDir: string, format: 'table' | 'json' = 'table') {
    const result = await runProcess('sh', ['-x', LOOPY, 'status', sessionId, '--format', format], {
      cwd,
      env: envWithoutTemporal({ THE_LOOP_CONFIG: configFile, THE_LOOP_STATE_DIR: stateDir }),
    });
    const nodes = result.stderr.split('\n').filter((line) => /^\+ (exec )?node /.test(line));
    return { code: result.code, stdout: result.stdout, nodes };
  }

  it("answers from the snapshot alone, with the worker's live state", async () => {
    const result = await status(worker.deps.stateDir, 'json');
    expect(result.code).toBe(0);
    expect(result.nodes).toHaveLength(1);
    expect(result.nodes[0]).toContain('--snapshot-blob');
    const shown = JSON.parse(result.stdout) as {
      source: string;
      state: { status: string; iteration: number };
    };
    expect(shown.source).toBe('live');
    expect(shown.state).toMatchObject({ status: 'running', iteration: 1 });
  });

  it('with no worker in its state directory, the script asks Temporal and prints the same', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'the-loop-other-state-'));
    const handedOver = await status(elsewhere);
    expect(handedOver.code).toBe(0);
    expect(handedOver.nodes).toHaveLength(2);
    expect(handedOver.nodes[1]).toMatch(/^\+ exec node /);
    const fromWorker = await status(worker.deps.stateDir);
    expect(handedOver.stdout).toBe(fromWorker.stdout);
    expect(fromWorker.stdout).toMatch(/^status +running iteration 1/m);
    expect(fromWorker.stdout).not.toMatch(/^source/m); // the live state, not state.json
  });
});
