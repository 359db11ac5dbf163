import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { hookReportSchema, type HookReport } from './report';
import { parseBoundedJson, type BoundedJsonError } from '../json/bounded-json';
import {
  HOOK_LOG_ENV,
  HOOK_SOCKET_ENV,
  HOOK_SPOOL_ENV,
  HOOK_TOKEN_FILE_ENV,
  REPORT_PATH,
  WORK_ITEM_ENV,
} from './protocol';

/**
 * The receiving end of the plugin's hooks: one Unix socket per host worker, in a 0700 directory, and one random
 * token per hosted session in a 0600 file. A report is accepted only with a session's token, and the session it
 * belongs to is the token's, never something the report claims.
 */
export interface HookChannelOptions {
  /** A directory of this worker's own (created 0700): holds hooks.sock, tokens/, logs/ and spool/. */
  dir: string;
  /**
   * Called once per accepted report; the hook gets its answer when this settles: 204, or the reply it resolves to
   * (a held permission prompt's decision), and 500 when it rejects.
   */
  onReport: (session: string, report: HookReport) => void | Promise<void | HookReply>;
  log?: (line: string) => void;
  /**
   * Sessions a predecessor opened: those whose token file is still there are admitted again before the socket
   * listens, so that no report of theirs meets a channel that does not know them yet.
   */
  readmit?: string[];
}

/** An answer to a report other than 204: a JSON body with 200, or a status alone (503: ask again). */
export type HookReply = { status: 200; body: unknown } | { status: 503; message: string };

/** What a hosted pane needs to report: put `env` into the pane's environment. */
export interface SessionAccess {
  tokenFile: string;
  logFile: string;
  env: Record<string, string>;
}

export interface HookChannel {
  readonly socketPath: string;
  /**
   * Gives `session` (any stable key, e.g. the work item's workflow id) a token, reusing the one in its token file
   * when there is one, so that a restarted worker keeps serving panes opened by its predecessor. With `workItem`,
   * the env also names it (THE_LOOP_WORK_ITEM), for the link-pr hook.
   */
  openSession(session: string, options?: { workItem?: string }): Promise<SessionAccess>;
  /** Forgets the session's token and deletes its file: its hooks are refused from now on. */
  closeSession(session: string): Promise<void>;
  close(): Promise<void>;
}

/** Unix socket paths are limited to 107 bytes on Linux (103 on macOS). */
const MAX_SOCKET_PATH = 103;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A report is one flat object (depth 1); 16 leaves room for new fields yet never reaches a stack overflow. */
const REPORT_BOUNDS = { maxDepth: 16, maxBytes: MAX_BODY_BYTES };
const TOKEN_BYTES = 32;
/** How long a closing channel waits for the reports under way (a turn's completion is one Temporal call). */
const DRAIN_WITHIN_MS = 15_000;
/** How often the spool is read while the channel runs: a hook may spool just as this worker starts. */
const SPOOL_SWEEP_MS = 2_000;

/** Settles when every promise has, or after `ms`, whichever is first. */
function drained(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([Promise.allSettled(promises).then(() => undefined), bound]).finally(() =>
    clearTimeout(timer),
  );
}

export class HookChannelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookChannelError';
  }
}

const fileName = (session: string) => createHash('sha256').update(session).digest('hex').slice(0, 24);
const digest = (token: string) => createHash('sha256').update(token).digest();

/** A socket file nobody listens on (a crashed worker's) is removed; a live one is someone else's: refuse. */
async function clearStaleSocket(socketPath: string): Promise<void> {
  try {
    await stat(socketPath);
  } catch {
    return;
  }
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) throw new HookChannelError(`${socketPath} is in use by another process`);
  await unlink(socketPath);
}

async function readToken(file: string): Promise<string | null> {
  try {
    const info = await stat(file);
    if ((info.mode & 0o077) !== 0) return null;
    const token = (await readFile(file, 'utf8')).trim();
    return /^[0-9a-f]{64}$/.test(token) ? token : null;
  } catch {
    return null;
  }
}

/** Written with mode 0600 from its first byte (never chmod'ed afterwards), replacing any older file. */
async function writeToken(file: string, token: string): Promise<void> {
  await rm(file, { force: true });
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(`${token}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A report's body → the report, or why it is refused. */
function parseReport(body: string): { report: HookReport } | { invalid: string } {
  let json: unknown;
  try {
    json = parseBoundedJson(body, REPORT_BOUNDS);
  } catch (error) {
    const refused = error as BoundedJsonError;
    return { invalid: refused.problem === 'not-json' ? 'the report is not JSON' : refused.message };
  }
  const parsed = hookReportSchema.safeParse(json);
  if (parsed.success) return { report: parsed.data };
  const issue = parsed.error.issues[0];
  return { invalid: `invalid report: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim() };
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startHookChannel(options: HookChannelOptions): Promise<HookChannel> {
  const log = options.log ?? (() => undefined);
  const socketPath = join(options.dir, 'hooks.sock');
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH)
    throw new HookChannelError(
      `the hook socket path ${socketPath} is longer than ${MAX_SOCKET_PATH} bytes: choose a shorter directory`,
    );
  const tokensDir = join(options.dir, 'tokens');
  const logsDir = join(options.dir, 'logs');
  const spoolDir = join(options.dir, 'spool');
  for (const dir of [options.dir, tokensDir, logsDir, spoolDir]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  }
  await clearStaleSocket(socketPath);

  /** sha256(token) → session; digests are compared in constant time. */
  const sessions = new Map<string, { session: string; digest: Buffer }>();

  function sessionOf(req: IncomingMessage): string | null {
    const match = /^Bearer ([0-9a-f]{64})$/.exec(req.headers.authorization ?? '');
    if (!match?.[1]) return null;
    const presented = digest(match[1]);
    for (const entry of sessions.values()) if (timingSafeEqual(entry.digest, presented)) return entry.session;
    return null;
  }

  const answer = (res: ServerResponse, status: number, message?: string) => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(message ? `${message}\n` : '');
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== REPORT_PATH) return answer(res, 404, 'not found');
    const session = sessionOf(req);
    if (session === null) return answer(res, 401, 'unknown or missing session token');
    const body = await readBody(req);
    if (body === null) return answer(res, 413, `a report is at most ${MAX_BODY_BYTES} bytes`);
    const parsed = parseReport(body);
    if ('invalid' in parsed) return answer(res, 400, parsed.invalid);
    const reply = await handled(session, parsed.report);
    if (reply === false) return answer(res, 500, 'the worker could not handle the report');
    if (reply === undefined) return answer(res, 204);
    if (reply.status === 503) return answer(res, 503, reply.message);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply.body));
  }

  /** The reply to give (undefined: 204), or false when the report could not be handled. */
  async function handled(session: string, report: HookReport): Promise<HookReply | undefined | false> {
    try {
      return (await options.onReport(session, report)) ?? undefined;
    } catch (error) {
      log(`hook channel: ${session}: ${report.event} not handled: ${(error as Error).message}`);
      return false;
    }
  }

  const spoolFile = (name: string) => join(spoolDir, `${name}.jsonl`);
  /**
   * Hands the spooled reports of every admitted session to onReport, oldest first. The file is renamed before it
   * is read, so a hook spooling meanwhile starts a new one; a replay cut short by a crash is done again.
   */
  let sweep = Promise.resolve();
  function replaySpool(): Promise<void> {
    sweep = sweep.then(async () => {
      for (const [name, { session }] of sessions) {
        const taken = `${spoolFile(name)}.replaying`;
        const text =
          (await readFile(taken, 'utf8').catch(() => null)) ??
          (await rename(spoolFile(name), taken).then(
            () => readFile(taken, 'utf8'),
            () => null,
          ));
        if (text === null) continue;
        for (const line of text.split('\n')) {
          if (line.trim() === '') continue;
          const parsed = parseReport(line);
          if ('invalid' in parsed) log(`hook channel: ${session}: a spooled report is ${parsed.invalid}`);
          else await handled(session, parsed.report);
        }
        await rm(taken, { force: true });
      }
    });
    return sweep;
  }

  /** Reports being handled: close() lets them finish, so a turn that ended as the worker stops is not lost. */
  const inFlight = new Set<Promise<void>>();
  const server: Server = createServer((req, res) => {
    const handled = handle(req, res).catch((error: unknown) => {
      log(`hook channel: ${(error as Error).message}`);
      if (!res.headersSent) answer(res, 500, 'internal error');
    });
    inFlight.add(handled);
    void handled.finally(() => inFlight.delete(handled));
  });
  async function admit(
    session: string,
    openOptions: { workItem?: string },
    create: boolean,
  ): Promise<SessionAccess | null> {
    const name = fileName(session);
    const tokenFile = join(tokensDir, `${name}.token`);
    const logFile = join(logsDir, `${name}.log`);
    let token = await readToken(tokenFile);
    if (token === null) {
      if (!create) return null;
      token = randomBytes(TOKEN_BYTES).toString('hex');
      await writeToken(tokenFile, token);
    }
    sessions.set(name, { session, digest: digest(token) });
    return {
      tokenFile,
      logFile,
      env: {
        [HOOK_SOCKET_ENV]: socketPath,
        [HOOK_TOKEN_FILE_ENV]: tokenFile,
        [HOOK_LOG_ENV]: logFile,
        [HOOK_SPOOL_ENV]: spoolFile(name),
        ...(openOptions.workItem ? { [WORK_ITEM_ENV]: openOptions.workItem } : {}),
      },
    };
  }

  for (const session of options.readmit ?? []) await admit(session, {}, false);
  await replaySpool();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(socketPath, 0o600);
  const sweeping = setInterval(() => void replaySpool(), SPOOL_SWEEP_MS);

  return {
    socketPath,
    async openSession(session, openOptions = {}) {
      return (await admit(session, openOptions, true)) as SessionAccess;
    },
    async closeSession(session) {
      const name = fileName(session);
      sessions.delete(name);
      await rm(join(tokensDir, `${name}.token`), { force: true });
      await rm(spoolFile(name), { force: true });
    },
    async close() {
      // No new reports; the ones under way finish (their hooks get an answer), then every connection goes.
      clearInterval(sweeping);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await drained([...inFlight, sweep], DRAIN_WITHIN_MS);
      server.closeAllConnections();
      await closed;
      await rm(socketPath, { force: true });
    },
  };
}
