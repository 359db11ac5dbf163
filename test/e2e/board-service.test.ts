import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../../src/service/dev-server';
import { readPidFile } from '../../src/service/process-facts';
import { freePort } from '../support/dev-server';
import { runCli } from '../support/cli';
import { testServer } from '../support/temporal';
import { waitFor } from '../support/wait';

// A start, a goal session and a stop of the whole service: 23 s on an idle machine, past 120 s once under a full
// suite's load, so the test's deadline is well above its one wait (120 s).
jest.setTimeout(600_000);

describe('the-loop start serves the board (embedded dev server)', () => {
  let stateDir: string;
  let env: NodeJS.ProcessEnv;
  let boardPort: number;

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'the-loop-svc-board-'));
    const [port, uiPort] = [await freePort(), await freePort()];
    boardPort = await freePort();
    const configFile = join(stateDir, 'the-loop.yaml');
    writeFileSync(
      configFile,
      `temporal:\n  devServer:\n    port: ${port}\n    uiPort: ${uiPort}\nboard:\n  port: ${boardPort}\n`,
    );
    env = {
      THE_LOOP_STATE_DIR: stateDir,
      THE_LOOP_CONFIG: configFile,
      THE_LOOP_TEMPORAL_CLI: testServer().cliPath,
      TEMPORAL_ADDRESS: '',
      // the test run turns boards off (hermetic-env.ts); the config file's port is the one this test checks
      THE_LOOP_BOARD_PORT: '',
    };
  });

  afterAll(async () => {
    await runCli(['stop'], { env });
  });

  it('starts the board, prints its URL in start and status, and stop ends it', async () => {
    const url = `http://127.0.0.1:${boardPort}/`;
    const start = await runCli(['start'], { env });
    expect(start.code).toBe(0);
    expect(start.stdout).toMatch(/started the board \(pid \d+\)/);
    expect(start.stdout).toContain(`board: ${url}`);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Needs you');

    // a goal session started from another directory than the service's is on the board too
    const project = mkdtempSync(join(tmpdir(), 'the-loop-board-project-'));
    const goal = [
      '--goal',
      'say hi',
      '--harness',
      'command',
      '--harness-command',
      'true',
      '--max-iterations',
      '1',
    ];
    const run = await runCli(['run', ...goal, '--cwd', project, '--detach'], { env, name: 'loopy' });
    expect(run.code).toBe(0);
    const session = run.stdout.trim();
    await waitFor(
      'the goal session on the board',
      async () => (await (await fetch(url)).text()).includes(`id="row-g-${session}"`),
      120_000,
    );

    const again = await runCli(['start'], { env });
    expect(again.stdout).toMatch(/the board is already running/);
    const status = await runCli(['status'], { env });
    expect(status.stdout).toMatch(new RegExp(`board: +running \\(pid \\d+, ${url.replace(/[.]/g, '\\.')}`));

    const pid = await readPidFile(join(stateDir, 'board.pid'));
    expect(pid).not.toBeNull();
    const stop = await runCli(['stop'], { env });
    expect(stop.stdout).toMatch(/board: stopped/);
    expect(isAlive(pid ?? 0)).toBe(false);
  });
});
