import { join, resolve } from 'node:path';
import { runProcess, type ProcessResult } from './run-process';

const HOOKS = resolve(__dirname, '..', '..', 'plugin', 'hooks');

/** Runs one of the plugin's hook scripts as Claude Code does: the input JSON on stdin. */
export function runHook(script: string, input: unknown, env: NodeJS.ProcessEnv): Promise<ProcessResult> {
  return runProcess(process.execPath, [join(HOOKS, script)], {
    env: { PATH: process.env.PATH, ...env },
    input: JSON.stringify(input),
  });
}
