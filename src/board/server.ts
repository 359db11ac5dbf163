import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorLine } from '../errors';
import type { Logger } from '../log/logger';
import type { SessionsContext } from '../use-cases/context';
import { closeServer } from '../webhook/close-server';
import { useCaseRunner, type ActionRunner, type Actor } from './actions';
import { isLoopback } from './auth';
import { csrfToken } from './csrf';
import { DirectoryWatch } from './directory-watch';
import { html } from './html';
import { LiveRows } from './live';
import { replyText } from './request';
import { route, type BoardState } from './routes';
import type { BoardRow } from './rows';
import { serveSessionPage } from './session-route';
import { BoardSnapshot } from './snapshot';
import { renderRow } from './templates';

/**
 * How often the board reads the records again with no change seen: the watch brings a change within tens of
 * milliseconds; this covers what it cannot see (a directory created later, a network file system).
 */
const FALLBACK_READ_EVERY_MS = 5000;
/** How long a stop waits for requests under way. */
const CLOSE_GRACE_MS = 2000;

export interface BoardOptions {
  ctx: SessionsContext;
  /** Where the goal sessions it shows live (`.loopy_loop/sessions` under it). */
  cwd: string;
  host: string;
  port: number;
  /** Required off loopback; with one, every request needs the cookie a one-time link set. */
  token: string | null;
  actor: Actor;
  logger: Logger;
  /** The buttons' use cases; the real ones unless a test gives others. */
  run?: ActionRunner;
  /** Links in the footer: the Temporal Web UI. */
  webUi: string | null;
}

export interface RunningBoard {
  url: string;
  close(): Promise<void>;
}

/** Serves the board until closed; the first read of the rows is done before it listens. */
export async function serveBoard(options: BoardOptions): Promise<RunningBoard> {
  if (!isLoopback(options.host) && options.token === null) {
    throw new Error(
      `board.host ${options.host} is not loopback: set board.token (or THE_LOOP_BOARD_TOKEN) first`,
    );
  }
  const { logger } = options;
  const csrf = csrfToken(randomBytes(32).toString('base64url'));
  const page = { csrf };
  const snapshot = new BoardSnapshot(options.ctx, options.cwd);
  const live = new LiveRows();
  let rows = new Map<string, BoardRow>();
  let reading: Promise<void> | null = null;
  let again = false;
  const watch = new DirectoryWatch(() => refresh());
  const read = async () => {
    const next = await snapshot.rows();
    watch.set(snapshot.directories());
    rows = new Map(next.map((row) => [row.id, row]));
    live.update(next.map((row) => renderRow(page, row)));
  };
  const refresh = (): void => {
    if (reading) {
      again = true;
      return;
    }
    reading = read()
      .catch((error: unknown) => logger.warn(`board: could not read the sessions: ${errorLine(error)}`))
      .finally(() => {
        reading = null;
        if (again) {
          again = false;
          refresh();
        }
      });
  };
  await read();
  const timer = setInterval(refresh, FALLBACK_READ_EVERY_MS);
  timer.unref();

  const state: BoardState = {
    live,
    row: (id) => rows.get(id),
    csrf,
    token: options.token,
    loopbackOnly: options.token === null,
    usedLinks: new Set(),
    run: options.run ?? useCaseRunner(options.ctx),
    actor: options.actor,
    logger,
    refresh,
    footer: html`<p>
      ${options.webUi ? html`<a href="${options.webUi}">Temporal Web UI</a> · ` : ''}keys: <kbd>j</kbd>/<kbd
        >k</kbd
      >
      move between sessions, <kbd>Enter</kbd> opens one.
    </p>`,
    sessionPage: (req, res, id, rest) =>
      serveSessionPage(
        { ctx: options.ctx, page, row: rows.get(id), current: () => rows.get(id), logger },
        req,
        res,
        rest,
      ),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    route(state, req, res).catch((error: unknown) => {
      logger.error(`board: ${req.method ?? ''} ${req.url ?? ''} failed: ${errorLine(error)}`);
      replyText(res, 500, 'the board failed on this request; see its log');
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/`,
    async close() {
      clearInterval(timer);
      watch.close();
      live.close();
      await closeServer(server, CLOSE_GRACE_MS);
    },
  };
}
