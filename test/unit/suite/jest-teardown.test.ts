import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

const root = join(__dirname, '../../..');
const fixtures = join(root, 'test/fixtures/jest-teardown');

/**
 * A subprocess that one test file starts and that ends while the next file runs in the same worker (a leaked
 * `sessions start`, a claude still exiting) must not fail the next file. Jest 30's default soft-deletes what a file
 * left on its globals, execa's exit bookkeeping among it, and the setter it wraps a number in recurses forever: the
 * next file then failed with "Maximum call stack size exceeded", or its worker died and Jest ran a suite twice against
 * the same server. jest.config.js turns that cleanup off; this runs two files in one worker under its settings.
 */
it('a subprocess that ends after its file is torn down does not fail the next file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jest-teardown-'));
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the project's own Jest settings
    const { projects } = require(join(root, 'jest.config.js')) as { projects: Record<string, unknown>[] };
    const { globalSetup: _setup, globalTeardown: _teardown, ...unit } = projects[0] ?? {};
    const config = {
      ...unit,
      rootDir: root,
      testMatch: [`${fixtures}/*.fixture.ts`],
      testSequencer: join(fixtures, 'by-name.sequencer.js'),
    };
    const run = await execa(
      process.execPath,
      [
        join(root, 'node_modules/jest/bin/jest.js'),
        '--config',
        JSON.stringify(config),
        '--runInBand',
        '--ci',
      ],
      { cwd: root, env: { JEST_TEARDOWN_DIR: dir }, reject: false, all: true },
    );
    const summary = run.all.split('\n').filter((line) => /Tests:|Test Suites:|●|RangeError/.test(line));
    expect(summary.map((line) => line.trim())).toEqual([
      'Test Suites: 2 passed, 2 total',
      'Tests:       2 passed, 2 total',
    ]);
    expect(run.exitCode).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
