import { join } from 'node:path';
import { runProcess, type ProcessResult } from './run-process';

export const BIN = join(__dirname, '..', '..', 'bin', 'the-loop.js');

export type CliResult = ProcessResult;

/** Runs the CLI as a user would: bin/the-loop.js (or bin/loopy) executed, with the built dist/ behind it. */
export function runCli(
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    timeoutMs?: number;
    input?: string;
    name?: 'the-loop' | 'loopy';
  } = {},
): Promise<CliResult> {
  // The launcher itself, as a shell runs it: `sessions list` then starts from the start-up snapshot.
  const launcher = options.name === 'loopy' ? join(__dirname, '..', '..', 'bin', 'loopy') : BIN;
  return runProcess(launcher, args, { ...options, env: { ...process.env, ...options.env } });
}
