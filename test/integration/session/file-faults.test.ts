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
import {
  claudeEnv,
  realClaudeBin,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import { waitFor } from '../../support/recovery';
import { scriptGoalLoops, untilFile } from '../../support/scripted-agent';
import {
  startTestWorker,
  testClient,
  testServer,
  uniqueQueue,
  type TestWorker,
} from '../../support/temporal';

jest.setTimeout(300_000);

/** A 2 MB tmpfs for the session's files, or why the host cannot give one (the test then says so and is skipped). */
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
if ('reason' in mounted) process.stderr.write(`file-faults test skipped: ${mounted.reason}\n`);
const describeMounted = 'dir' in mounted ? describe : describe.skip;

/** The REAL claude CLI against the mock Anthropic API; its HOME (and transcripts) are not on the small tmpfs. */
describeMounted('a full disk under a session', () => {
  const dir = 'dir' in mounted ? mounted.dir : '';
  let worker: TestWorker;
  let client: Client;
  let connection: Connection;
  let env: NodeJS.ProcessEnv;
  let mock: MockAnthropic;
  const saved = { ...process.env };
  const config = configSchema.parse({
    temporal: { taskQueue: uniqueQueue('enospc') },
    worker: { hostId: 'faulthost' },
    harness: { claude: { command: realClaudeBin() } },
  });

  beforeAll(async () => {
    mock = await startMockAnthropic();
    Object.assign(process.env, claudeEnv(mock).env);
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
    await mock?.close();
    process.env = saved;
    execFileSync('umount', ['-l', dir]);
  });

  it('ENOSPC in the session files stops the session with the reason, in its result and in loopy status', async () => {
    const release = join(mkdtempSync(join(tmpdir(), 'loopy-enospc-release-')), 'go');
    const played = scriptGoalLoops(mock, (turn) =>
      turn.iteration === 1 ? { until: untilFile(release), costUsd: 0.01 } : {},
    );
    const cwd = join(dir, 'project');
    mkdirSync(cwd);
    const input = buildSessionInput(config, {
      goal: 'write while the disk fills up',
      cwd,
      harness: 'claude',
      maxIterations: 5,
    });
    const handle = await startGoalSession(client, input);
    await waitFor(() => played.turns.length === 1, 60_000, 'the first turn');
    fillUp(dir); // the disk fills up while the turn runs
    writeFileSync(release, '');

    // Not retried without end: the session stops, and says why.
    const result = await handle.result();
    expect(result.stop.kind).toBe('error');
    expect(result.stop.reason).toMatch(
      /^the session's files cannot be written: ENOSPC: no space left on device/,
    );
    expect(played.turns).toHaveLength(1); // no turn was dispatched after the fault
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
