import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { EXIT, usageError } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';

export type EvalRunOptions = GlobalOptions & {
  checkDir: string;
  outputDir: string;
  cwd: string;
  timeout: string;
  builtin?: true;
};

export function declareCommand(evalCommand: Command<[], GlobalOptions>): void {
  evalCommand
    .command('run')
    .description(
      'run the checks in --check-dir: eval-banana when it is installed, else the built-in runner (same flags, same report shape)',
    )
    .requiredOption(
      '--check-dir <dir>',
      'the checks: executables, *.sh scripts, or *.cmd files holding one shell command',
    )
    .requiredOption('--output-dir <dir>', 'where <run_id>/report.json, report.md and checks/ go')
    .option('--cwd <dir>', 'working directory of the checks', '.')
    .option('--timeout <duration>', 'per check (built-in runner)', '10m')
    .option('--builtin', 'use the built-in runner even when eval-banana is installed')
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/**
 * `the-loop eval run`: eval-banana's exit code when it runs the checks (its report is its own); the built-in
 * runner's line a check and a summary, exit 0 when every check passed.
 */
export async function run(options: EvalRunOptions, io: Io): Promise<number> {
  if (!existsSync(options.checkDir) || !statSync(options.checkDir).isDirectory()) {
    throw usageError(`--check-dir ${options.checkDir}: no such directory`);
  }
  const { durationProblem, parseDuration } = await import('../../../config/duration.js');
  const timeoutMs = parseDuration(options.timeout);
  if (timeoutMs === null) throw usageError(`--timeout ${durationProblem(options.timeout)}`);
  const { findExecutable } = await import('../../../harness/find-executable.js');
  const banana = options.builtin ? null : findExecutable('eval-banana');
  if (banana) {
    const args = [
      'run',
      '--cwd',
      options.cwd,
      '--check-dir',
      options.checkDir,
      '--output-dir',
      options.outputDir,
    ];
    const { execa } = await import('execa');
    return (await execa(banana, args, { stdio: 'inherit', reject: false })).exitCode ?? EXIT.failure;
  }
  const { runEvalChecks } = await import('../../../evals/runner.js');
  const { report, runDir } = await runEvalChecks({
    cwd: options.cwd,
    checkDir: options.checkDir,
    outputDir: options.outputDir,
    timeoutMs,
  });
  for (const check of report.checks) {
    io.out(`${check.passed ? 'pass' : check.timed_out ? 'TIMEOUT' : 'FAIL'}  ${check.id}`);
  }
  io.out(`${report.passed} of ${report.total} checks passed — ${join(runDir, 'report.md')}`);
  return report.failed === 0 ? EXIT.ok : EXIT.failure;
}
