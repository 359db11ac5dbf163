import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startScratchDevServer } from './dev-server';
import { resolveTemporalCli } from '../../src/service/resolve-cli';

/** One real dev server per test run, on free ports with a throw-away database, and one workflow bundle. */
export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-test-'));
  // Every temporary directory a test makes lands in here and goes with the run (global-teardown.ts): test runs
  // must not pile up directories in the machine's /tmp.
  const testTmp = join(dir, 'tmp');
  mkdirSync(testTmp);
  process.env.TMPDIR = testTmp;
  let cli;
  try {
    cli = await resolveTemporalCli({ onProgress: (line) => process.stderr.write(`${line}\n`) });
  } catch (error) {
    throw new Error(
      `Integration tests need a real Temporal dev server and none could be found or built.\n${(error as Error).message}`,
      { cause: error },
    );
  }
  const server = await startScratchDevServer({ cliPath: cli.path, dir });
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../src/workflows'),
    logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} },
  });
  const bundlePath = join(dir, 'workflow-bundle.js');
  writeFileSync(bundlePath, code);
  const info = {
    address: server.address,
    uiAddress: server.uiAddress,
    pid: server.pid,
    dir,
    bundlePath,
    cliPath: cli.path,
  };
  writeFileSync(join(dir, 'server.json'), JSON.stringify(info));
  process.env.THE_LOOP_TEST_SERVER = JSON.stringify(info);
  (globalThis as { __THE_LOOP_TEST_SERVER__?: typeof info }).__THE_LOOP_TEST_SERVER__ = info;
}
