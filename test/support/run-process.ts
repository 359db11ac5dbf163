import { spawn } from 'node:child_process';

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The whole environment of the process (callers that add to theirs spread process.env themselves). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  input?: string;
  timeoutMs?: number;
}

/**
 * Runs a program to its end and keeps what it printed. One that outlives `timeoutMs` (default 120 s) is killed and
 * fails the call: a hang is a failure of its own, never a result a test might leave unchecked.
 */
export function runProcess(file: string, args: string[], options: RunOptions = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timeoutMs = options.timeoutMs ?? 120_000;
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (hung)
        reject(new Error(`\`${[file, ...args].join(' ')}\` did not exit within ${timeoutMs} ms\n${stderr}`));
      else resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
