import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { durationProblem, parseDuration } from '../../../config/duration';
import { findExecutable } from '../../../harness/find-executable';
import type { GlobalOptions } from '../../../service/context';
import { EXIT, usageError } from '../../../errors';
import { processIo } from '../../io';

export function registerEvalCommands(program: Command<[], GlobalOptions>): void {
  const evalCommand = program
    .command('eval')
    .description('eval checks of a session (eval-banana compatible)');
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
    .action(async (options) => {
      if (!existsSync(options.checkDir) || !statSync(options.checkDir).isDirectory()) {
        throw usageError(`--check-dir ${options.checkDir}: no such directory`);
      }
      const timeoutMs = parseDuration(options.timeout);
      if (timeoutMs === null) throw usageError(`--timeout ${durationProblem(options.timeout)}`);
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
        process.exitCode =
          (await execa(banana, args, { stdio: 'inherit', reject: false })).exitCode ?? EXIT.failure;
        return;
      }
      const { runEvalChecks } = await import('../../../evals/runner.js');
      const { report, runDir } = await runEvalChecks({
        cwd: options.cwd,
        checkDir: options.checkDir,
        outputDir: options.outputDir,
        timeoutMs,
      });
      for (const check of report.checks) {
        processIo.out(`${check.passed ? 'pass' : check.timed_out ? 'TIMEOUT' : 'FAIL'}  ${check.id}`);
      }
      processIo.out(`${report.passed} of ${report.total} checks passed — ${join(runDir, 'report.md')}`);
      process.exitCode = report.failed === 0 ? EXIT.ok : EXIT.failure;
    });
}
