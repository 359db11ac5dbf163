import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { killProcessGroup, type KillAction } from './process-group';

export {
  isProcessGroupAlive,
  killProcessGroup,
  liveProcessGroupMembers,
  processGroupMembers,
} from './process-group';
export type { KillAction } from './process-group';

export interface ProcessRunOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; null gives the process an already-closed stdin. */
  stdin: string | null;
  /** stdout.txt and stderr.txt are written here as the process runs. */
  outputDir: string;
  timeoutMs: number;
  killGraceMs: number;
  signal?: AbortSignal;
  onSpawn?: (info: { pid: number; pgid: number }) => void;
}

export interface ProcessOutcome {
  /** Set when the process never started (ENOENT, EACCES, missing cwd); every other field is then empty. */
  spawnError: NodeJS.ErrnoException | null;
  pid: number | null;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** What it took to end the group: after a timeout or abort, or for leftovers once the leader exited. */
  kill: { action: KillAction; settled: boolean } | null;
}

/** spawnError code for a working directory that does not exist (spawn itself would misreport it as ENOENT of the executable). */
export const BAD_CWD = 'EBADCWD';

/** How long to wait for stdout to close after the group is gone (a process that escaped the group may hold it). */
const CLOSE_WAIT_MS = 2000;

/**
 * Runs a harness as the leader of its own process group so that the group can be killed as a whole:
 * agents spawn tool processes, and none of them may outlive the iteration that started them.
 */
export async function runProcess(opts: ProcessRunOptions): Promise<ProcessOutcome> {
  const outcome: ProcessOutcome = {
    spawnError: null,
    pid: null,
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    aborted: false,
    kill: null,
  };
  fs.mkdirSync(opts.outputDir, { recursive: true });
  if (opts.signal?.aborted) return { ...outcome, aborted: true };
  if (!fs.existsSync(opts.cwd)) {
    return {
      ...outcome,
      spawnError: errno(BAD_CWD, `working directory ${opts.cwd} does not exist`, opts.cwd),
    };
  }

  const stdoutFile = fs.createWriteStream(path.join(opts.outputDir, 'stdout.txt'));
  const stderrFile = fs.createWriteStream(path.join(opts.outputDir, 'stderr.txt'));
  const closeFiles = (): Promise<void> =>
    Promise.all([stdoutFile, stderrFile].map((s) => new Promise<void>((resolve) => s.end(resolve)))).then(
      () => {},
    );

  let child: ChildProcess;
  try {
    child = spawn(opts.command, [...opts.args], {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: [opts.stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  } catch (err) {
    await closeFiles();
    return { ...outcome, spawnError: err as NodeJS.ErrnoException };
  }
  const spawnError = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', (err) => resolve(err));
  });
  if (spawnError || child.pid === undefined) {
    await closeFiles();
    return { ...outcome, spawnError: spawnError ?? errno('ESRCH', 'process did not start', opts.command) };
  }
  const pid = child.pid;
  outcome.pid = pid;
  opts.onSpawn?.({ pid, pgid: pid });

  const stdoutChunks: Buffer[] = [];
  const stderrChunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    stdoutChunks.push(chunk);
    stdoutFile.write(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrChunks.push(chunk);
    stderrFile.write(chunk);
  });
  if (child.stdin) {
    // A harness that exits without reading its stdin must not crash us with EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
  }

  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      outcome.exitCode = code;
      outcome.signal = signal;
      resolve();
    }),
  );

  let killing: Promise<{ action: KillAction; settled: boolean }> | null = null;
  const killGroup = (): Promise<{ action: KillAction; settled: boolean }> =>
    (killing ??= killProcessGroup(pid, opts.killGraceMs));
  const timer = setTimeout(() => {
    outcome.timedOut = true;
    void killGroup();
  }, opts.timeoutMs);
  const onAbort = (): void => {
    outcome.aborted = true;
    void killGroup();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  await exited;
  clearTimeout(timer);
  opts.signal?.removeEventListener('abort', onAbort);
  // The leader is gone; anything it left behind in its group is killed too (or already being killed).
  outcome.kill = await killGroup();
  const timedOutWaiting = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(true), CLOSE_WAIT_MS).unref()),
  ]);
  if (timedOutWaiting) {
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  await closeFiles();
  outcome.stdout = Buffer.concat(stdoutChunks).toString('utf8');
  outcome.stderr = Buffer.concat(stderrChunks).toString('utf8');
  return outcome;
}

function errno(code: string, message: string, filePath: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(message);
  err.code = code;
  err.path = filePath;
  return err;
}
