import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { isExecutable } from '../harness/find-executable';
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

function runCheck(
  check: Check,
  cwd: string,
  dir: string,
  timeoutMs: number,
): Promise<Omit<EvalCheckResult, 'id' | 'file' | 'kind' | 'stdout_file' | 'stderr_file'>> {
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  return new Promise((done) => {
    const stdout = createWriteStream(join(dir, 'stdout.txt'));
    const stderr = createWriteStream(join(dir, 'stderr.txt'));
    const child = spawn(check.argv[0] ?? '/bin/sh', check.argv.slice(1), {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(stdout);
    child.stderr.pipe(stderr);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    const flushed = (stream: ReturnType<typeof createWriteStream>) =>
      new Promise<void>((resolveFlush) =>
        stream.writableFinished ? resolveFlush() : stream.once('finish', resolveFlush),
      );
    const finish = async (exitCode: number | null, signal: string | null) => {
      clearTimeout(timer);
      // 'close' fires once the pipes are drained into the streams; the files are complete only after 'finish'.
      stdout.end();
      stderr.end();
      await Promise.all([flushed(stdout), flushed(stderr)]);
      done({
        passed: exitCode === 0 && !timedOut,
        exit_code: exitCode,
        signal,
        timed_out: timedOut,
        duration_ms: Date.now() - started,
      });
    };
    child.on('error', (error) => {
      stderr.write(`${error.message}\n`);
      void finish(127, null);
    });
    child.on('close', (code, signal) => void finish(code, signal));
  });
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
