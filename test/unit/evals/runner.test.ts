import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverChecks, runEvalChecks } from '../../../src/evals/runner';
import { readJsonFile } from '../../../src/session/json-file';
import { evalReportSchema } from '../../../src/session/schemas/eval-report';

describe('built-in eval runner', () => {
  it('runs executables, *.sh and *.cmd checks; the exit status is the verdict; writes report.json, report.md and checks/', async () => {
    const root = mkdtempSync(join(tmpdir(), 'evals-'));
    const checks = join(root, 'eval_checks');
    const out = join(root, 'eval_results');
    const cwd = join(root, 'work');
    for (const dir of [checks, cwd]) mkdirSync(dir);
    writeFileSync(join(cwd, 'hello.txt'), 'hello\n');
    writeFileSync(join(checks, 'has-hello.sh'), 'grep -q hello hello.txt && echo found\n');
    writeFileSync(join(checks, 'fails.cmd'), 'echo nope >&2; exit 3\n');
    writeFileSync(join(checks, 'exec-check'), '#!/bin/sh\ntest -f hello.txt\n');
    chmodSync(join(checks, 'exec-check'), 0o755);
    writeFileSync(join(checks, 'README.md'), 'not a check\n');

    expect(discoverChecks(checks).map((c) => [c.id, c.kind])).toEqual([
      ['exec-check', 'executable'],
      ['fails', 'shell-command'],
      ['has-hello', 'shell-script'],
    ]);
    const { report, runDir } = await runEvalChecks({
      cwd,
      checkDir: checks,
      outputDir: out,
      timeoutMs: 10_000,
    });
    expect(readJsonFile(join(runDir, 'report.json'), evalReportSchema)).toEqual(report);
    expect({ total: report.total, passed: report.passed, failed: report.failed }).toEqual({
      total: 3,
      passed: 2,
      failed: 1,
    });
    const failing = report.checks.find((c) => c.id === 'fails');
    expect(failing).toMatchObject({ passed: false, exit_code: 3, timed_out: false });
    expect(readFileSync(join(runDir, failing?.stderr_file ?? ''), 'utf8')).toBe('nope\n');
    expect(readFileSync(join(runDir, 'checks', 'has-hello', 'stdout.txt'), 'utf8')).toBe('found\n');
    expect(readFileSync(join(runDir, 'report.md'), 'utf8')).toContain('2 of 3 checks passed');
  });

  it('a check that runs past the timeout fails as timed out', async () => {
    const root = mkdtempSync(join(tmpdir(), 'evals-'));
    writeFileSync(join(root, 'slow.cmd'), 'sleep 5\n');
    const { report } = await runEvalChecks({
      cwd: root,
      checkDir: root,
      outputDir: join(root, 'out'),
      timeoutMs: 300,
    });
    expect(report.checks[0]).toMatchObject({ id: 'slow', passed: false, timed_out: true });
  });
});
