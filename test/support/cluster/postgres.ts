// A PostgreSQL of the test's own: a scratch data directory and a free port on 127.0.0.1, from the distribution's
// packages (Debian: apt-get install postgresql). PostgreSQL refuses to run as root, so as root it runs as the
// `postgres` user the package creates.
import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../dev-server';

const run = promisify(execFile);

export interface Postgres {
  host: string;
  port: number;
  /** A superuser that needs no password (trust on 127.0.0.1 only). */
  user: string;
  logFile: string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The newest /usr/lib/postgresql/<major>/bin with initdb, or THE_LOOP_PG_BIN. */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.THE_LOOP_PG_BIN) return env.THE_LOOP_PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!majors[0]) {
    throw new Error(
      'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): `apt-get install postgresql`, or set THE_LOOP_PG_BIN',
    );
  }
  return join(root, majors[0], 'bin');
}

interface RunAs {
  uid: number;
  gid: number;
  /** argv prefix that runs a command as that user. */
  prefix: string[];
}

async function runAs(): Promise<RunAs> {
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) return { uid, gid: process.getgid?.() ?? 0, prefix: [] };
  try {
    const ids = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return {
      uid: Number(ids[0].stdout.trim()),
      gid: Number(ids[1].stdout.trim()),
      prefix: ['runuser', '-u', 'postgres', '--'],
    };
  } catch {
    throw new Error('running as root and there is no `postgres` user to run PostgreSQL as (it refuses root)');
  }
}

/** The postgres user must reach the data directory: let it through (never read) the directories above it. */
function letThrough(dir: string): void {
  const uid = process.getuid?.();
  for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) {
    const st = statSync(d);
    if (st.uid === uid && (st.mode & 0o001) === 0) chmodSync(d, (st.mode & 0o7777) | 0o001);
  }
}

async function exec(as: RunAs, bin: string, args: string[], what: string): Promise<void> {
  const [cmd, ...rest] = [...as.prefix, bin, ...args];
  try {
    await run(cmd as string, rest, { timeout: 120_000 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${what} failed: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' | ')}`, {
      cause: error,
    });
  }
}

/** initdb on `dir`/data, then pg_ctl start; resolves once PostgreSQL accepts connections. */
export async function startPostgres(dir: string): Promise<Postgres> {
  const bin = postgresBinDir();
  const as = await runAs();
  const data = join(dir, 'data');
  mkdirSync(data, { recursive: true });
  letThrough(data);
  chmodSync(dir, 0o711);
  chownSync(data, as.uid, as.gid);
  chmodSync(data, 0o700);
  const user = 'temporal';
  await exec(
    as,
    join(bin, 'initdb'),
    ['-D', data, '-U', user, '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'],
    'initdb',
  );
  const port = await freePort();
  // TCP on loopback only; no Unix socket (its directory would need to be shared with the postgres user).
  appendFileSync(
    join(data, 'postgresql.conf'),
    [
      '',
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      "unix_socket_directories = ''",
      'max_connections = 300',
      '',
    ].join('\n'),
  );
  const log = join(dir, 'log');
  mkdirSync(log);
  chownSync(log, as.uid, as.gid);
  const serverLog = join(log, 'postgres.log');
  const pgCtl = (args: string[], what: string) =>
    exec(as, join(bin, 'pg_ctl'), ['-D', data, '-l', serverLog, '-w', '-t', '120', ...args], what);
  await pgCtl(['start'], 'pg_ctl start');
  return {
    host: '127.0.0.1',
    port,
    user,
    logFile: serverLog,
    restart: () => pgCtl(['restart', '-m', 'fast'], 'pg_ctl restart'),
    stop: () => pgCtl(['stop', '-m', 'fast'], 'pg_ctl stop'),
  };
}
