import { formatUsd } from '../pricing/money';
import { toTheSecond } from '../work-item/waiting-view';
import { html, SafeHtml } from './html';
import { CSRF_FIELD } from './csrf';
import { SECTION_TITLES, SECTIONS, type BoardRow, type Section } from './rows';
import type { RenderedRow } from './diff';

/** What every rendered page needs: the CSRF token its forms carry. */
export interface PageContext {
  csrf: string;
}

/** A whole page: the layout every board page shares, with its stylesheet and script (no inline code: CSP). */
export function layout(title: string, body: SafeHtml, attributes: SafeHtml = html``): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>${title}</title>
        <link rel="stylesheet" href="/board.css" />
        <script src="/board.js" defer></script>
      </head>
      <body ${attributes}>
        <a class="skip" href="#main">Skip to the sessions</a>
        ${body}
        <div id="notice" role="status" aria-live="polite"></div>
      </body>
    </html> `;
}

const ICONS: Record<Section, string> = { needs: '⚠', running: '▶', queued: '…', ended: '■' };

export const COLUMNS = [
  'Session',
  'Status',
  'Node',
  'Turns',
  'Last turn',
  'Cost / budget',
  'PR',
  'Since',
  'Host',
  'Asked',
  'Links',
];

function cost(row: BoardRow): string {
  if (!row.cost) return row.budget === null ? '—' : `— / ${formatUsd(row.budget)}`;
  const spent = `${formatUsd(row.cost.usd)}${row.cost.unpriced ? ' (+ unpriced)' : ''}`;
  return row.budget === null ? spent : `${spent} / ${formatUsd(row.budget)}`;
}

/** A small form that posts one action on one session; `extra` adds its inputs. */
function actionForm(
  ctx: PageContext,
  row: Pick<BoardRow, 'id' | 'session'>,
  action: string,
  label: string,
  extra: SafeHtml = html``,
): SafeHtml {
  return html`<form method="post" action="/action" class="act">
    <input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}" /><input
      type="hidden"
      name="row"
      value="${row.id}"
    /><input type="hidden" name="action" value="${action}" />${extra}<button type="submit">${label}</button>
  </form>`;
}

function textInput(name: string, label: string, placeholder: string, required = false): SafeHtml {
  return html`<label class="inline"
    ><span class="sr">${label}</span
    ><input name="${name}" placeholder="${placeholder}" ${required ? html` required` : ''} maxlength="4000"
  /></label>`;
}

/** The buttons a waiting session offers for its kind of wait, and stop for any open one. */
export function actions(ctx: PageContext, row: BoardRow): SafeHtml {
  if (row.section === 'ended') return html``;
  const forms = row.kind === 'goal' ? goalForms(ctx, row) : workItemForms(ctx, row);
  forms.push(actionForm(ctx, row, 'stop', 'Stop'));
  return html`<div class="actions">${forms}</div>`;
}

function answerForm(ctx: PageContext, row: BoardRow): SafeHtml {
  return actionForm(ctx, row, 'reply', 'Answer', textInput('text', 'Your answer', 'your answer', true));
}

/** A goal session: an answer (`loopy update`) where a turn asked or was refused tools, resume where it is paused. */
function goalForms(ctx: PageContext, row: BoardRow): SafeHtml[] {
  const reason = row.waiting?.reason;
  const forms: SafeHtml[] = [];
  if (reason === 'question' || reason === 'permission') forms.push(answerForm(ctx, row));
  if (reason === 'blocked' || reason === 'permission') forms.push(actionForm(ctx, row, 'resume', 'Resume'));
  return forms;
}

function workItemForms(ctx: PageContext, row: BoardRow): SafeHtml[] {
  const forms: SafeHtml[] = [];
  switch (row.waiting?.reason) {
    case 'permission':
      forms.push(actionForm(ctx, row, 'allow', 'Allow'));
      forms.push(actionForm(ctx, row, 'deny', 'Deny', textInput('reason', 'Why deny', 'why (optional)')));
      break;
    case 'question':
      forms.push(answerForm(ctx, row));
      break;
    case 'gate':
      forms.push(actionForm(ctx, row, 'approve', 'Approve'));
      forms.push(
        actionForm(ctx, row, 'reject', 'Reject', textInput('reason', 'Why reject', 'why (optional)')),
      );
      break;
    case 'budget':
      forms.push(
        actionForm(
          ctx,
          row,
          'raise',
          'Raise budget',
          html`<label class="inline"
            ><span class="sr">New budget in USD</span
            ><input
              name="to"
              inputmode="decimal"
              pattern="[0-9]+(\\.[0-9]{1,6})?"
              placeholder="USD"
              required
              size="6"
          /></label>`,
        ),
      );
      break;
    default:
      break;
  }
  return forms;
}

/** One row of a list: a <tr> whose id the live updates name. */
export function rowHtml(ctx: PageContext, row: BoardRow): SafeHtml {
  const title = row.goal ? html`<span class="goal">${row.goal}</span>` : '';
  const asked = row.waiting
    ? html`<p class="asked"><strong>${row.waiting.reason}:</strong> ${row.waiting.detail}</p>
        ${actions(ctx, row)}`
    : actions(ctx, row);
  const links = [
    row.webUi ? html`<a href="${row.webUi}">Temporal</a>` : '',
    html`<details>
      <summary>Paths</summary>
      <p>Session directory: <code>${row.sessionDir}</code></p>
      ${row.attach ? html`<p>Attach: <code class="copy">${row.attach}</code></p>` : ''}
    </details>`,
  ];
  return html`<tr id="row-${row.id}" data-sort="${row.sort}" class="${row.section}">
    <th scope="row"><a href="/session/${row.id}">${row.session}</a>${title}</th>
    <td class="status"><span aria-hidden="true">${ICONS[row.section]} </span>${row.status}</td>
    <td>${row.node ?? '—'}</td>
    <td class="num">${row.turns}</td>
    <td class="summary">${row.summary ?? '—'}</td>
    <td class="num">${cost(row)}</td>
    <td>${row.pullRequests.length > 0 ? row.pullRequests.join(', ') : '—'}</td>
    <td><time datetime="${row.since}">${toTheSecond(row.since)}</time></td>
    <td>${row.host ?? '—'}</td>
    <td>${asked}</td>
    <td>${links}</td>
  </tr>`;
}

export function renderRow(ctx: PageContext, row: BoardRow): RenderedRow {
  return { id: row.id, section: row.section, sort: row.sort, html: rowHtml(ctx, row).value };
}

const EMPTY: Record<Section, string> = {
  needs: 'Nothing waits for you.',
  running: 'Nothing runs.',
  queued: 'Nothing is queued.',
  ended: 'Nothing ended recently.',
};

/** The board itself: four lists, each a table, in page order. */
export function boardPage(
  rows: readonly RenderedRow[],
  options: { version: number; notice: string | null; footer: SafeHtml },
): SafeHtml {
  const sections = SECTIONS.map((section) => {
    const mine = rows.filter((r) => r.section === section);
    return html`<section aria-labelledby="h-${section}" id="${section}">
      <h2 id="h-${section}">
        ${SECTION_TITLES[section]} <span class="count" data-count="${section}">(${mine.length})</span>
      </h2>
      <p class="empty" data-empty="${section}" ${mine.length > 0 ? html` hidden` : ''}>${EMPTY[section]}</p>
      <table>
        <thead>
          <tr>
            ${COLUMNS.map((c) => html`<th scope="col">${c}</th>`)}
          </tr>
        </thead>
        <tbody id="list-${section}" data-section="${section}">
          ${mine.map((r) => new SafeHtml(r.html))}
        </tbody>
      </table>
    </section>`;
  });
  const nav = SECTIONS.map((s) => html`<a href="#${s}">${SECTION_TITLES[s]}</a> `);
  return layout(
    'the-loop board',
    html`<header>
        <h1>the-loop board</h1>
        <nav aria-label="Lists">${nav}</nav>
        ${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''}
      </header>
      <main id="main">${sections}</main>
      <footer>${options.footer}</footer>`,
    html`data-live="/events" data-version="${options.version}"`,
  );
}
