import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import { configSchema } from '../../../src/config/schema';
import { statusQuery } from '../../../src/workflows/goal-session-messages';
import { runCli } from '../../support/cli';
import { FAKE_CLAUDE, scriptFakeClaude } from '../../support/fake-claude';
import { fakeRuns, waitFor } from '../../support/recovery';
import {
  startTestWorker,
  testClient,
  testServer,
  uniqueQueue,
  type TestWorker,
} from '../../support/temporal';

jest.setTimeout(300_000);

/** A 2 MB tmpfs for the session's files, or why the host cannot give one (the suite then fails, saying so). */
function mountSmallTmpfs(): { dir: string } | { reason: string } {
  if (process.getuid?.() !== 0) return { reason: 'mounting a tmpfs needs root' };
  const dir = mkdtempSync(join(tmpdir(), 'loopy-enospc-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    return { reason: `mount -t tmpfs failed: ${String((error as Error).message).split('\n')[0]}` };
  }
}

/** Fills the file system that holds `dir` until a write fails with ENOSPC. */
function fillUp(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

const mounted = mountSmallTmpfs();
// No silent skip: without a tmpfs of its own the suite cannot fill a disk, and says how to give it one.
if ('reason' in mounted)
  throw new Error(
    `the full-disk test needs a tmpfs: ${mounted.reason} — run the suite as root (as .ci/run does)`,
  );

describe('a full disk under a session', () => {
  const dir = mounted.dir;
  let worker: TestWorker;
  let client: Client;
  let connection: Connection;
  let env: NodeJS.ProcessEnv;
  const config = configSchema.parse({
    temporal: { taskQueue: uniqueQueue('enospc') },
    worker: { hostId: 'faulthost' },
    harness: { claude: { command: FAKE_CLAUDE } },
  });

  beforeAll(async () => {
    ({ client, connection } = await testClient());
    worker = await startTestWorker({ config, taskQueue: config.temporal.taskQueue, hostId: 'faulthost' });
    const configFile = join(mkdtempSync(join(tmpdir(), 'loopy-enospc-config-')), 'the-loop.yaml');
    writeFileSync(
      configFile,
      `temporal:\n  taskQueue: ${config.temporal.taskQueue}\nworker:\n  hostId: faulthost\n`,
    );
    env = { TEMPORAL_ADDRESS: testServer().address, THE_LOOP_CONFIG: configFile };
  });
  afterAll(async () => {
    await worker?.shutdown();
    await connection?.close();
    execFileSync('umount', ['-l', dir]);
  });

  it('ENOSPC in the session files stops the session with the reason, in its result and in loopy status', async () => {
    const release = join(mkdtempSync(join(tmpdir(), 'loopy-enospc-release-')), 'go');
    const fake = scriptFakeClaude({ turns: [{ wait_for_file: release, cost_usd: 0.01 }], default: {} });
    const cwd = join(dir, 'project');
    mkdirSync(cwd);
    const input = buildSessionInput(config, {
      goal: 'write while the disk fills up',
      cwd,
      harness: 'claude',
      maxIterations: 5,
    });
    const handle = await startGoalSession(client, input);
    await waitFor(() => fakeRuns(fake.stateDir).find((r) => r.n === 1), 60_000, 'the first turn');
    fillUp(dir); // the disk fills up while the turn runs
    writeFileSync(release, '');

    // Not retried without end: the session stops, and says why.
    const result = await handle.result();
    expect(result.stop.kind).toBe('error');
    expect(result.stop.reason).toMatch(
      /^the session's files cannot be written: ENOSPC: no space left on device/,
    );
    expect(fake.runs()).toBe(1); // no turn was dispatched after the fault
    const state = await handle.query(statusQuery);
    expect(state.status).toBe('stopped');
    expect(state.stop).toMatchObject({ kind: 'error', reason: result.stop.reason });
    expect(state.history[0]).toMatchObject({ iteration: 1, success: false });
    expect(state.history[0]?.error).toContain('ENOSPC');

    const status = await runCli(['status', input.sessionId], { env, cwd, name: 'loopy' });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/status +stopped \(error\): the session's files cannot be written: ENOSPC/);
  });
});
