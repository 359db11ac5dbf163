import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli } from '../support/cli';

describe('loopy eval run (built-in runner, eval-banana flags)', () => {
  it('exits 0 when every check passes, 1 when one fails, 2 for a missing check directory', async () => {
    const root = mkdtempSync(join(tmpdir(), 'loopy-eval-'));
    const checks = join(root, 'eval_checks');
    mkdirSync(checks);
    writeFileSync(join(checks, 'ok.cmd'), 'true\n');
    // no eval-banana: the built-in runner answers (node's own directory: the launcher runs node)
    const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
    const args = [
      'eval',
      'run',
      '--cwd',
      root,
      '--check-dir',
      checks,
      '--output-dir',
      join(root, 'eval_results'),
    ];
    const pass = await runCli(args, { env, name: 'loopy' });
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(/^pass {2}ok$/m);
    expect(pass.stdout).toMatch(/1 of 1 checks passed/);

    writeFileSync(join(checks, 'broken.sh'), 'exit 1\n');
    const fail = await runCli(args, { env, name: 'loopy' });
    expect(fail.code).toBe(1);
    expect(fail.stdout).toMatch(/^FAIL {2}broken$/m);
    expect(readdirSync(join(root, 'eval_results'))).toHaveLength(2);

    const missing = await runCli(['eval', 'run', '--check-dir', join(root, 'nope'), '--output-dir', root], {
      env,
      name: 'loopy',
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toMatch(/^loopy: --check-dir .*nope: no such directory$/);
  });
});
