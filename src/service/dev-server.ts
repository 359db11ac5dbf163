import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { pollUntil } from '../process/poll-until';
import { spawnBackground } from '../process/spawn-background';
import { terminate } from '../process/terminate';
import { LOOP_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { runningProcess } from './process-facts';

export interface DevServerOptions {
  cliPath: string;
  dbFile: string;
  logFile: string;
  ip?: string;
  port: number;
  uiPort: number;
  /** Detached servers outlive the process that started them (`the-loop start`). */
  detached: boolean;
  namespace?: string;
  /** SQLite pragmas for the database file; default DEV_SERVER_SQLITE_PRAGMAS, [] for SQLite's own defaults. */
  sqlitePragmas?: readonly string[];
  /** More `temporal server start-dev` flags (e.g. --dynamic-config-value). */
  extraArgs?: readonly string[];
}

/**
 * Write-ahead log with synchronous=NORMAL: a commit is one append to the WAL, fsync'ed at checkpoints, instead of
 * SQLite's default rollback journal with an fsync (two, in fact) per commit. Every commit still survives the
 * server process dying (SIGKILL included: the data is in the kernel's page cache); an OS crash or power loss may
 * roll back the last commits, never corrupting the file. Measured with bench/webhook-receiver.ts: raw signals
 * ~250/s → ~500–700/s on 2 shared cores.
 */
export const DEV_SERVER_SQLITE_PRAGMAS: readonly string[] = ['journal_mode=wal', 'synchronous=normal'];

/**
 * The history service reads its transfer queue (which hands new workflow and activity tasks to matching) at most
 * `history.transferProcessorMaxPollRPS` times a second, 20 by default. A session's turn needs two transfer
 * tasks, so once the initial burst is spent every turn waited ~100 ms for that limiter, with or without the-loop
 * (bench/overhead.ts, bare Temporal row). The timer and visibility queues have the same limit (heartbeat timeouts,
 * search attributes). A single-host dev server has no other tenant to protect from them.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: readonly string[] = [
  'history.transferProcessorMaxPollRPS=10000',
  'history.timerProcessorMaxPollRPS=10000',
  'history.visibilityProcessorMaxPollRPS=10000',
];

export interface DevServerHandle {
  pid: number;
  address: string;
  uiAddress: string;
}

const SA_TYPE_NAMES: Record<string, string> = {
  KEYWORD: 'Keyword',
  TEXT: 'Text',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

function searchAttributeFlags(): string[] {
  return LOOP_SEARCH_ATTRIBUTES.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${SA_TYPE_NAMES[key.type]}`,
  ]);
}

/** Starts `temporal server start-dev` on a SQLite file with the project's search attributes registered. */
export function spawnDevServer(options: DevServerOptions): DevServerHandle {
  const ip = options.ip ?? '127.0.0.1';
  mkdirSync(dirname(options.dbFile), { recursive: true });
  mkdirSync(dirname(options.logFile), { recursive: true });
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    options.dbFile,
    '--ip',
    ip,
    '--port',
    String(options.port),
    '--ui-port',
    String(options.uiPort),
    '--namespace',
    options.namespace ?? 'default',
    '--log-format',
    'json',
    '--log-level',
    'warn',
    ...searchAttributeFlags(),
    ...(options.sqlitePragmas ?? DEV_SERVER_SQLITE_PRAGMAS).flatMap((p) => ['--sqlite-pragma', p]),
    ...DEV_SERVER_DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]),
    ...(options.extraArgs ?? []),
  ];
  const pid = spawnBackground(options.cliPath, args, {
    logFile: options.logFile,
    detached: options.detached,
  });
  return { pid, address: `${ip}:${options.port}`, uiAddress: `http://${ip}:${options.uiPort}` };
}

/** A running process: not gone, and not a zombie that only waits for its parent to reap it. */
export function isAlive(pid: number): boolean {
  return runningProcess(pid) !== null;
}

/** Waits until the frontend answers, or the process dies, or the bound passes. */
export async function waitForServer(address: string, pid: number | null, timeoutMs: number): Promise<void> {
  let lastError = 'no answer yet';
  const answered = await pollUntil(
    async () => {
      if (pid !== null && !isAlive(pid))
        throw new Error(`the Temporal dev server (pid ${pid}) exited during start-up`);
      try {
        // Loaded here: `status` and the control verbs load this file without ever waiting for a server.
        const { Connection } = await import('@temporalio/client');
        const connection = await Connection.connect({ address, connectTimeout: 2000 });
        try {
          await connection.workflowService.getSystemInfo({});
          return true;
        } finally {
          await connection.close();
        }
      } catch (error) {
        lastError = (error as Error).message;
        return false;
      }
    },
    { timeoutMs, intervalMs: 250 },
  );
  if (answered) return;
  throw new Error(
    `the Temporal server at ${address} did not answer within ${timeoutMs / 1000} s (${lastError})`,
  );
}

/** SIGTERM, then SIGKILL after the grace period; resolves when the process is gone. */
export async function stopProcess(
  pid: number,
  graceMs = 10000,
): Promise<'not-running' | 'sigterm' | 'sigkill'> {
  // A SIGKILLed process is gone at once unless it is stuck in the kernel; a minute covers that too.
  // SIGCONT after SIGTERM: a stopped process (SIGSTOP) resumes and acts on the SIGTERM instead of waiting out the grace
  const { action } = await terminate(
    { pid },
    { graceMs, killWaitMs: 60_000, intervalMs: 50, politeSignals: ['SIGTERM', 'SIGCONT'] },
  );
  return action === 'none' ? 'not-running' : action;
}
