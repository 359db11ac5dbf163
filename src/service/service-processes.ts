import { basename, join, resolve } from 'node:path';
import { stateDir as stateDirOf } from '../config/state-dir';
import { writeFileAtomic } from '../session/atomic';
import {
  HAS_PROC,
  findProcesses,
  processEnvironment,
  readPidFile,
  runningProcess,
  type ProcessFacts,
} from './process-facts';

export function servicePaths(stateDir: string) {
  return {
    dbFile: join(stateDir, 'temporal.db'),
    serverLog: join(stateDir, 'logs', 'temporal.log'),
    workerLog: join(stateDir, 'logs', 'worker.log'),
    serverPid: join(stateDir, 'temporal.pid'),
    workerPid: join(stateDir, 'worker.pid'),
    workerReady: join(stateDir, 'worker.ready.json'),
    workerHeartbeat: join(stateDir, 'worker.heartbeat'),
    webhookLog: join(stateDir, 'logs', 'webhook.log'),
    webhookPid: join(stateDir, 'webhook.pid'),
    webhookReady: join(stateDir, 'webhook.ready.json'),
    supervisorLog: join(stateDir, 'logs', 'supervisor.log'),
    supervisorPid: join(stateDir, 'supervisor.pid'),
    supervisorFile: join(stateDir, 'supervisor.json'),
    boardLog: join(stateDir, 'logs', 'board.log'),
    boardPid: join(stateDir, 'board.pid'),
    boardReady: join(stateDir, 'board.ready.json'),
    startLock: join(stateDir, 'service.lock'),
  };
}

/**
 * The parts of one state directory's service: the dev server, the worker (`start`'s, `dev` or `worker`), the
 * receiver, the board, and the supervisor that restarts any of the others that exits (supervisor.ts).
 */
export type ServiceRole = 'server' | 'worker' | 'webhook' | 'board' | 'supervisor';

export interface ServiceProcess {
  pid: number;
  /** How it runs: `server` for the dev server, else the-loop's subcommand (`worker`, `dev`, `webhook`). */
  command: string;
}

const PID_FILE = {
  server: 'serverPid',
  worker: 'workerPid',
  webhook: 'webhookPid',
  board: 'boardPid',
  supervisor: 'supervisorPid',
} as const;
type Commands = Record<Exclude<ServiceRole, 'server'>, readonly string[]>;
/** `dev` runs a worker, and the receiver only when a webhook secret is set: its pid file says which it runs. */
const REGISTERED_COMMANDS: Commands = {
  worker: ['worker', 'dev'],
  webhook: ['webhook', 'dev'],
  board: ['board'],
  supervisor: ['supervise'],
};
const SCANNED_COMMANDS: Commands = {
  worker: ['worker', 'dev'],
  webhook: ['webhook'],
  board: ['board'],
  supervisor: ['supervise'],
};

export function pidFileOf(stateDir: string, role: ServiceRole): string {
  return servicePaths(stateDir)[PID_FILE[role]];
}

/** The value of `flag` in argv, given as `--flag value` or `--flag=value`. */
function flagValue(argv: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === flag) return argv[i + 1];
    if (argv[i]!.startsWith(`${flag}=`)) return argv[i]!.slice(flag.length + 1);
  }
  return undefined;
}

/** The-loop's subcommand in a node command line: the first word after the script that is no global option. */
function subcommandOf(argv: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--config') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

function isNode(argv0: string | undefined): boolean {
  return argv0 !== undefined && (argv0 === process.execPath || basename(argv0).startsWith('node'));
}

/**
 * Whether a running process is `role` for `stateDir`: the dev server whose --db-filename is this state directory's
 * database, or a the-loop process (`worker`, `dev`, `webhook`) whose environment selects this state directory.
 * Returns the command it runs, or null.
 */
export function serviceCommand(
  facts: ProcessFacts,
  role: ServiceRole,
  stateDir: string,
  commands: Commands = REGISTERED_COMMANDS,
): string | null {
  const { argv } = facts;
  // Without /proc nothing more than the pid file's word is known.
  if (!HAS_PROC) return role;
  if (role === 'server') {
    const db = flagValue(argv, '--db-filename');
    const matches =
      argv.includes('start-dev') &&
      db !== undefined &&
      resolve(db) === resolve(servicePaths(stateDir).dbFile);
    return matches ? 'server' : null;
  }
  if (!isNode(argv[0])) return null;
  const command = subcommandOf(argv);
  if (command === undefined || !commands[role].includes(command)) return null;
  const env = processEnvironment(facts.pid);
  return env !== null && resolve(stateDirOf(env)) === resolve(stateDir) ? command : null;
}

/** The process a pid file names, when it is running and really is `role` for this state directory. */
export async function registeredProcess(stateDir: string, role: ServiceRole): Promise<ServiceProcess | null> {
  const pid = await readPidFile(pidFileOf(stateDir, role));
  if (pid === null) return null;
  const facts = runningProcess(pid);
  const command = facts ? serviceCommand(facts, role, stateDir) : null;
  return command === null ? null : { pid, command };
}

/** Every running process that is `role` for this state directory, pid file or not. */
export async function findServiceProcesses(stateDir: string, role: ServiceRole): Promise<ServiceProcess[]> {
  const found = await findProcesses(
    (facts) => serviceCommand(facts, role, stateDir, SCANNED_COMMANDS) !== null,
  );
  return found.map((facts) => ({
    pid: facts.pid,
    command: serviceCommand(facts, role, stateDir, SCANNED_COMMANDS)!,
  }));
}

/**
 * The running `role` of this state directory: the one its pid file names, else one found by scanning (a server a
 * concurrent or crashed start left without a pid file, a worker whose pid file was lost).
 */
export async function liveServiceProcess(
  stateDir: string,
  role: ServiceRole,
): Promise<ServiceProcess | null> {
  return (await registeredProcess(stateDir, role)) ?? (await findServiceProcesses(stateDir, role))[0] ?? null;
}

/**
 * The running `role` of this state directory, its pid file rewritten when it was found without one (a server a
 * crashed start left behind), so that every later look finds it the cheap way.
 */
export async function adoptServiceProcess(
  stateDir: string,
  role: ServiceRole,
): Promise<ServiceProcess | null> {
  const running = await liveServiceProcess(stateDir, role);
  if (running && (await readPidFile(pidFileOf(stateDir, role))) !== running.pid) {
    writeFileAtomic(pidFileOf(stateDir, role), `${running.pid}\n`);
  }
  return running;
}
