import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorLine } from '../errors';
import type { Logger } from '../log/logger';
import type { SessionsContext } from '../use-cases/context';
import { html } from './html';
import { openStream } from './live';
import { reply, replyText } from './request';
import type { BoardRow } from './rows';
import { paneScreen, sessionDetails } from './session-details';
import { sessionPage } from './session-page';
import { layout, rowHtml, type PageContext } from './templates';

/** How often a session page's stream looks at the pane and the row again. */
const PANE_EVERY_MS = 1000;

export interface SessionRouteContext {
  ctx: SessionsContext;
  page: PageContext;
  row: BoardRow | undefined;
  /** The row as it is now (the stream asks again each time). */
  current?: () => BoardRow | undefined;
  logger: Logger;
}

/**
 * `/session/<id>`: the session's page; `/session/<id>/live`: its stream — the pane's screen when it changes, and
 * `reload` when the session's row changed (a new status, node or turn).
 */
export async function serveSessionPage(
  route: SessionRouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  rest: string,
): Promise<void> {
  const { row } = route;
  if (!row) {
    const page = layout(
      'not found',
      html`<main id="main">
        <h1>No such session</h1>
        <p><a href="/">The board</a></p>
      </main>`,
    );
    return reply(res, 404, 'text/html; charset=utf-8', page.value);
  }
  if (rest === '/live') return liveSession(route, row, req, res);
  if (rest !== '') return replyText(res, 404, 'not found');
  try {
    const details = await sessionDetails(route.ctx, row);
    reply(res, 200, 'text/html; charset=utf-8', sessionPage(route.page, details).value);
  } catch (error) {
    replyText(res, 409, `${row.session}: ${errorLine(error)}`);
  }
}

function liveSession(
  route: SessionRouteContext,
  row: BoardRow,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  openStream(res);
  const shown = rowHtml(route.page, row).value;
  const tmux = /^tmux -L (\S+) attach -t '=(.+)'$/.exec(row.attach ?? '');
  let screen: string | null = null;
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const now = route.current?.();
      if (now && rowHtml(route.page, now).value !== shown) {
        res.write('event: reload\ndata: {}\n\n');
        return;
      }
      if (!tmux) return;
      const next = await paneScreen(route.ctx, tmux[1] ?? '', tmux[2] ?? '');
      if (next !== null && next !== screen) {
        screen = next;
        res.write(`event: pane\ndata: ${JSON.stringify({ screen })}\n\n`);
      }
    } catch (error) {
      route.logger.debug(`board: pane of ${row.session}: ${errorLine(error)}`);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), PANE_EVERY_MS);
  void tick();
  req.on('close', () => clearInterval(timer));
}
