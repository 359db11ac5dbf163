import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const HOOKS = resolve(__dirname, '..', '..', 'plugin', 'hooks');

/** Runs one of the plugin's hook scripts as Claude Code does: the input JSON on stdin. */
export function runHook(
  script: string,
  input: unknown,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(HOOKS, script)], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(JSON.stringify(input));
  });
}
