import { readdir, readFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';

/**
 * What Linux says about a process, read from /proc. kill(pid, 0) succeeds for a zombie and for any process that
 * happens to have been given a recycled pid, so liveness is decided from these facts instead.
 */
export interface ProcessFacts {
  pid: number;
  /** The one-letter state from /proc/<pid>/stat: R, S, D, T, Z (zombie), X (dead), … */
  state: string;
  /** Clock ticks after boot at which the process started: together with the pid, it names one process. */
  startTime: number;
  argv: string[];
}

function parseStat(stat: string): Pick<ProcessFacts, 'state' | 'startTime'> | null {
  // The command name in parentheses may itself contain spaces and parentheses: the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  // starttime is field 22 of stat; state is field 3.
  const startTime = Number(fields[19]);
  if (!state || !Number.isFinite(startTime)) return null;
  return { state, startTime };
}

/** Without /proc (not Linux) only kill(pid, 0) is left: a process then has no known state or command line. */
export const HAS_PROC = existsSync('/proc/self/stat');

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The facts of one process, or null when there is none (or it is a zombie: exited, waiting for its parent). */
export function runningProcess(pid: number): ProcessFacts | null {
  if (!HAS_PROC) return signalable(pid) ? { pid, state: '?', startTime: 0, argv: [] } : null;
  try {
    const stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    if (!stat || stat.state === 'Z' || stat.state === 'X') return null;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (argv.at(-1) === '') argv.pop();
    return { pid, ...stat, argv };
  } catch {
    return null;
  }
}

/** The environment a process was started with (readable for our own processes only). */
export function processEnvironment(pid: number): NodeJS.ProcessEnv | null {
  try {
    const env: NodeJS.ProcessEnv = {};
    for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    return env;
  } catch {
    return null;
  }
}

/** Every running (non-zombie) process this user can see that `matches`. */
export async function findProcesses(matches: (facts: ProcessFacts) => boolean): Promise<ProcessFacts[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const found: ProcessFacts[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const facts = runningProcess(pid);
    if (facts && matches(facts)) found.push(facts);
  }
  return found;
}

/** A pid file's pid, or null when there is no file or it holds no pid. */
export async function readPidFile(file: string): Promise<number | null> {
  try {
    const pid = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * /proc's clock ticks per second (sysconf(_SC_CLK_TCK), USER_HZ): Linux fixes it at 100 in its user ABI on every
 * architecture, and Node offers no sysconf to ask.
 */
const CLOCK_TICKS_PER_SECOND = 100;

/** When a process started, in milliseconds since the epoch (boot time + its start tick); null without /proc. */
export async function processStartedAt(facts: ProcessFacts): Promise<number | null> {
  if (!HAS_PROC) return null;
  try {
    const btime = /^btime (\d+)$/m.exec(await readFile('/proc/stat', 'utf8'));
    return btime ? Number(btime[1]) * 1000 + (facts.startTime * 1000) / CLOCK_TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}
