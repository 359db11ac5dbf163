import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorLine } from '../errors';
import type { Logger } from '../log/logger';
import { parseAction, type ActionRunner, type Actor } from './actions';
import { BOARD_CSS, BOARD_JS } from './assets';
import { accessCookie, hasAccess, isLoopback, verifyLink } from './auth';
import { CSRF_FIELD, csrfRefusal } from './csrf';
import { html } from './html';
import type { LiveRows } from './live';
import { header, readForm, reply, replyText, SECURITY_HEADERS } from './request';
import type { BoardRow } from './rows';
import { boardPage, layout } from './templates';

/** What the routes read and act on: the live rows, the board's secrets, and how to run an action. */
export interface BoardState {
  live: LiveRows;
  /** The rows by id as last read, for the actions and the session pages. */
  row(id: string): BoardRow | undefined;
  csrf: string;
  token: string | null;
  /** A loopback board without a token: requests must name a loopback Host (against DNS rebinding). */
  loopbackOnly: boolean;
  usedLinks: Set<string>;
  run: ActionRunner;
  actor: Actor;
  logger: Logger;
  /** Read the rows again now (after an action). */
  refresh(): void;
  footer: ReturnType<typeof html>;
  sessionPage(req: IncomingMessage, res: ServerResponse, id: string, rest: string): Promise<void>;
}

/** Routes one request: static files, the one-time login, then (with access) the pages, the streams, the actions. */
export async function route(state: BoardState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  const url = new URL(req.url ?? '/', 'http://board.invalid');
  const host = header(req, 'host') ?? '';
  if (state.loopbackOnly && !isLoopback(host.replace(/:\d+$/, ''))) {
    replyText(res, 421, `this board answers to its loopback address only, not Host ${host}`);
    return;
  }
  if (req.method === 'GET' && url.pathname === '/board.css')
    return reply(res, 200, 'text/css; charset=utf-8', BOARD_CSS);
  if (req.method === 'GET' && url.pathname === '/board.js')
    return reply(res, 200, 'text/javascript; charset=utf-8', BOARD_JS);
  if (req.method === 'GET' && url.pathname === '/login') return login(state, url, res);
  if (!hasAccess(state.token, header(req, 'cookie'))) {
    const page = layout(
      'the-loop board: no access',
      html`<main id="main">
        <h1>No access</h1>
        <p>
          This board needs its token. Run <code>the-loop board --link</code> on the machine that serves it,
          and open the link it prints.
        </p>
      </main>`,
    );
    return reply(res, 401, 'text/html; charset=utf-8', page.value);
  }
  if (req.method === 'GET' && url.pathname === '/') {
    const notice = url.searchParams.get('notice');
    const page = boardPage(state.live.current(), {
      version: state.live.version,
      notice,
      footer: state.footer,
    });
    return reply(res, 200, 'text/html; charset=utf-8', page.value);
  }
  if (req.method === 'GET' && url.pathname === '/events') {
    const since = header(req, 'last-event-id') ?? url.searchParams.get('since');
    state.live.listen(res, since && /^\d+$/.test(since) ? Number(since) : null);
    return;
  }
  const session = /^\/session\/([wg]-[\w.@+-]+)(\/[a-z]+)?$/.exec(url.pathname);
  if (req.method === 'GET' && session) return state.sessionPage(req, res, session[1] ?? '', session[2] ?? '');
  if (req.method === 'POST' && url.pathname === '/action') return act(state, req, res);
  replyText(res, req.method === 'GET' || req.method === 'POST' ? 404 : 405, 'not found');
}

function login(state: BoardState, url: URL, res: ServerResponse): void {
  if (state.token === null) return reply(res, 303, 'text/plain', '', { location: '/' });
  const refusal = verifyLink(state.token, url.searchParams, Date.now(), state.usedLinks);
  if (refusal) {
    state.logger.warn(`board: a login link was refused: ${refusal}`);
    return replyText(res, 403, `${refusal}: run \`the-loop board --link\` for a new one`);
  }
  reply(res, 303, 'text/plain', '', { location: '/', 'set-cookie': accessCookie(state.token) });
}

/** Answers an action: JSON for the page's script, else back to the page it came from with a notice. */
function answer(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  back: string,
): void {
  if ((header(req, 'accept') ?? '').includes('application/json')) {
    return reply(res, status, 'application/json', JSON.stringify({ ok: status < 400, message }));
  }
  if (status >= 400 && status !== 409) return replyText(res, status, message);
  reply(res, 303, 'text/plain', '', { location: `${back}?notice=${encodeURIComponent(message)}` });
}

async function act(state: BoardState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  if (form === null) return replyText(res, 413, 'the form is too large');
  const refusal = csrfRefusal(
    {
      host: header(req, 'host'),
      origin: header(req, 'origin'),
      secFetchSite: header(req, 'sec-fetch-site'),
      formToken: form.get(CSRF_FIELD) ?? undefined,
    },
    { token: state.csrf, loopbackOnly: state.loopbackOnly },
  );
  if (refusal) {
    state.logger.warn(`board: refused a state-changing request: ${refusal}`);
    return replyText(res, 403, `refused: ${refusal}`);
  }
  const action = parseAction(form);
  const back = form.get('back') === 'session' ? `/session/${form.get('row') ?? ''}` : '/';
  if ('error' in action) return answer(req, res, 400, action.error, back);
  const row = state.row(form.get('row') ?? '');
  if (!row) return answer(req, res, 404, `no such session on the board: ${form.get('row') ?? ''}`, back);
  try {
    const message = await state.run(row, action, state.actor);
    state.logger.info(`board: ${action.action} ${row.session} by ${state.actor.by}: ${message}`);
    answer(req, res, 200, message, back);
  } catch (error) {
    const message = errorLine(error);
    state.logger.warn(`board: ${action.action} ${row.session} by ${state.actor.by} failed: ${message}`);
    answer(req, res, 409, message, back);
  } finally {
    state.refresh();
  }
}
