import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import { isExecutable } from '../harness/find-executable';
import { sendSignal } from '../process/terminate';
import { writeFileAtomic } from '../session/atomic';
import { writeJsonAtomic } from '../session/json-file';
import { evalReportSchema, type EvalCheckResult, type EvalReport } from '../session/schemas/eval-report';

export interface EvalRunOptions {
  cwd: string;
  checkDir: string;
  outputDir: string;
  timeoutMs: number;
}

interface Check {
  id: string;
  file: string;
  kind: EvalCheckResult['kind'];
  argv: string[];
}

/**
 * A check is an executable file, a `*.sh` script (run with sh), or a `*.cmd` file holding one shell command line.
 * Everything else in the directory (READMEs, data) is not a check.
 */
export function discoverChecks(checkDir: string): Check[] {
  const checks: Check[] = [];
  for (const name of readdirSync(checkDir).sort()) {
    const file = join(checkDir, name);
    if (name.startsWith('.') || !statSync(file).isFile()) continue;
    const id = name.replace(/\.(sh|cmd)$/, '');
    if (name.endsWith('.cmd')) {
      const line = readFileSync(file, 'utf8').trim();
      if (line) checks.push({ id, file, kind: 'shell-command', argv: ['/bin/sh', '-c', line] });
    } else if (name.endsWith('.sh')) {
      checks.push({ id, file, kind: 'shell-script', argv: ['/bin/sh', file] });
    } else if (isExecutable(file)) {
      checks.push({ id, file, kind: 'executable', argv: [file] });
    }
  }
  return checks;
}

async function runCheck(
  check: Check,
  cwd: string,
  dir: string,
  timeoutMs: number,
): Promise<Omit<EvalCheckResult, 'id' | 'file' | 'kind' | 'stdout_file' | 'stderr_file'>> {
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const stderrFile = join(dir, 'stderr.txt');
  const child = execa(check.argv[0] ?? '/bin/sh', check.argv.slice(1), {
    cwd,
    // Its own process group, so that a timeout ends whatever the check started as well.
    detached: true,
    stdin: 'ignore',
    stdout: { file: join(dir, 'stdout.txt') },
    stderr: { file: stderrFile },
    reject: false,
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid) sendSignal(-child.pid, 'SIGKILL');
  }, timeoutMs);
  // execa resolves once the output files are complete.
  const result = await child;
  clearTimeout(timer);
  const spawnFailed = result.failed && result.exitCode === undefined && result.signal === undefined;
  if (spawnFailed) appendFileSync(stderrFile, `${result.shortMessage ?? 'could not start the check'}\n`);
  const exitCode = spawnFailed ? 127 : (result.exitCode ?? null);
  return {
    passed: exitCode === 0 && !timedOut,
    exit_code: exitCode,
    signal: result.signal ?? null,
    timed_out: timedOut,
    duration_ms: Date.now() - started,
  };
}

function markdown(report: EvalReport): string {
  const rows = report.checks.map(
    (c) =>
      `| ${c.id} | ${c.passed ? 'pass' : c.timed_out ? 'timeout' : 'FAIL'} | ${c.exit_code ?? c.signal ?? ''} | ${c.duration_ms} ms | [stdout](${c.stdout_file}) · [stderr](${c.stderr_file}) |`,
  );
  return [
    `# Eval run ${report.run_id}`,
    '',
    `${report.passed} of ${report.total} checks passed (${report.failed} failed) — ${report.check_dir}, run in ${report.cwd}.`,
    '',
    '| check | verdict | exit | time | output |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

/** Runs every check; writes <outputDir>/<run_id>/report.json, report.md and checks/<id>/. */
export async function runEvalChecks(
  options: EvalRunOptions,
): Promise<{ report: EvalReport; runDir: string }> {
  const cwd = resolve(options.cwd);
  const checkDir = resolve(options.checkDir);
  const checks = discoverChecks(checkDir);
  const startedAt = new Date();
  const runId = `${startedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}_${randomBytes(3).toString('hex')}`;
  const runDir = join(resolve(options.outputDir), runId);
  const results: EvalCheckResult[] = [];
  for (const check of checks) {
    const dir = join(runDir, 'checks', check.id);
    const outcome = await runCheck(check, cwd, dir, options.timeoutMs);
    results.push({
      id: check.id,
      file: check.file,
      kind: check.kind,
      ...outcome,
      stdout_file: relative(runDir, join(dir, 'stdout.txt')),
      stderr_file: relative(runDir, join(dir, 'stderr.txt')),
    });
  }
  mkdirSync(join(runDir, 'checks'), { recursive: true });
  const passed = results.filter((r) => r.passed).length;
  const report = writeJsonAtomic(join(runDir, 'report.json'), evalReportSchema, {
    schema_version: 1,
    runner: 'the-loop builtin',
    run_id: runId,
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    cwd,
    check_dir: checkDir,
    total: results.length,
    passed,
    failed: results.length - passed,
    checks: results,
  });
  writeFileAtomic(join(runDir, 'report.md'), markdown(report));
  return { report, runDir };
}
