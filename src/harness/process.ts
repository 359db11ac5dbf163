import * as fs from 'node:fs';
import * as path from 'node:path';

import { errno, launchProcess } from './launcher';
import { readOutputFile } from './output-file';
import { killProcessGroup, type RunKill } from './process-group';
import { EXIT_FILE } from './supervisor';

export type { RunKill } from './process-group';

export interface ProcessRunOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; null gives the process an already-closed stdin. */
  stdin: string | null;
  /** stdout.txt and stderr.txt are written here by the process itself, as it runs. */
  outputDir: string;
  timeoutMs: number;
  killGraceMs: number;
  signal?: AbortSignal;
  /** Called as soon as the start is requested, while the process starts: for work that need not precede it. */
  onLaunch?: () => void;
  onSpawn?: (info: SpawnInfo) => void;
}

/** A started run: its supervisor's pid, which leads its process group, and its cgroup v2 directory (null: none). */
export interface SpawnInfo {
  pid: number;
  pgid: number;
  cgroup: string | null;
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
  /** What it took to end the group and the cgroup: after a timeout or abort, or for leftovers once the leader exited. */
  kill: RunKill | null;
}

/** spawnError code for a working directory that does not exist (spawn itself would misreport it as ENOENT of the executable). */
export const BAD_CWD = 'EBADCWD';

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

  const stdoutPath = path.join(opts.outputDir, 'stdout.txt');
  const stderrPath = path.join(opts.outputDir, 'stderr.txt');
  const launched = launchProcess({
    command: opts.command,
    args: [...opts.args],
    cwd: opts.cwd,
    env: definedEnv(opts.env),
    stdin: opts.stdin,
    stdoutFile: stdoutPath,
    stderrFile: stderrPath,
    exitFile: path.join(opts.outputDir, EXIT_FILE),
  });
  opts.onLaunch?.();
  const spawned = await launched.spawned;
  if ('error' in spawned) return { ...outcome, spawnError: spawned.error };
  const { pid, cgroup, sealed } = spawned;
  outcome.pid = pid;

  let killing: Promise<RunKill> | null = null;
  const killGroup = (): Promise<RunKill> =>
    (killing ??= killProcessGroup(pid, opts.killGraceMs, cgroup === null ? null : { path: cgroup, sealed }));
  const timer = setTimeout(() => {
    outcome.timedOut = true;
    void killGroup();
  }, opts.timeoutMs);
  const onAbort = (): void => {
    outcome.aborted = true;
    void killGroup();
  };
  // Registered before onSpawn runs: a stop that arrives while the caller records the spawn still ends the group.
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  opts.onSpawn?.({ pid, pgid: pid, cgroup });

  const exit = await launched.exited;
  outcome.exitCode = exit.code;
  outcome.signal = exit.signal;
  clearTimeout(timer);
  opts.signal?.removeEventListener('abort', onAbort);
  // The leader is gone; anything it left behind in its group or its cgroup is killed too (or already being killed).
  outcome.kill = await killGroup();
  outcome.stdout = await readOutputFile(stdoutPath);
  outcome.stderr = await readOutputFile(stderrPath);
  if (exit.lost) outcome.stderr += 'the harness launcher exited while this process ran\n';
  return outcome;
}

/** spawn() takes only defined values; process.env's type allows undefined ones. */
function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
