import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { DevServerHandle } from '../../src/service/dev-server';
import type { ResolvedCli } from '../../src/service/resolve-cli';
import { enterHermeticEnvironment } from './hermetic-env';
import { compiledSupervisorPath } from './supervisors';

/** One real dev server per test run, on free ports with a throw-away database, and one workflow bundle. */
export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-test-'));
  // Every temporary directory a test makes lands in here and goes with the run (global-teardown.ts): test runs
  // must not pile up directories in the machine's /tmp.
  const testTmp = join(dir, 'tmp');
  mkdirSync(testTmp);
  process.env.TMPDIR = testTmp;
  // PATH, HOME and tmux's sockets of the run's own (hermetic-env.ts), for everything it starts from here on.
  enterHermeticEnvironment(dir);
  // Turns start through the compiled supervisor, as on a machine with a C compiler; built once per machine.
  compiledSupervisorPath();
  // The CLI's compile cache too: a run's clone has paths of its own, whose entries would pile up in ~/.cache.
  process.env.THE_LOOP_COMPILE_CACHE_DIR = join(dir, 'compile-cache');
  // A plain Node process over dist/ (see start-scratch-server.js); integration tests run after `npm run build`.
  const started = spawnSync(process.execPath, [join(__dirname, 'start-scratch-server.js'), dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (started.status !== 0) throw new Error("could not start the test run's Temporal dev server (see above)");
  const { cli, server } = JSON.parse(started.stdout) as { cli: ResolvedCli; server: DevServerHandle };
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
