import type { ProcessGraph } from '../config/process-graph';
import { toTheSecond } from '../work-item/waiting-view';
import { html, type SafeHtml } from './html';
import { renderMarkdown } from './markdown';
import type { BoardRow } from './rows';
import { actions, layout, type PageContext } from './templates';

/** One line of a session's timeline. */
export interface TimelineEntry {
  ts: string;
  type: string;
  detail: string;
}

/** A turn's reply, as its result.json has it. */
export interface TurnReply {
  iteration: number;
  success: boolean;
  reply: string;
  error: string | null;
}

/** A child session of a goal session, with its own children. */
export interface ChildNode {
  id: string;
  status: string;
  outcome: string | null;
  children: ChildNode[];
}

/** Everything a session's own page shows. */
export interface SessionDetails {
  row: BoardRow;
  timeline: TimelineEntry[];
  replies: TurnReply[];
  children: ChildNode[];
  graph: ProcessGraph | null;
  /** The pane's last screen; null without a pane. */
  screen: string | null;
}

function graphHtml(graph: ProcessGraph, current: string | null): SafeHtml {
  const items = Object.entries(graph.nodes).map(([id, node]) => {
    const edges =
      node.kind === 'terminal'
        ? node.terminal
        : Object.entries(node.on)
            .map(([k, v]) => `${k} → ${v}`)
            .join(', ');
    const mark = id === current ? html`<span class="current">${id} ◀ current</span>` : id;
    return html`<li${id === current ? html` aria-current="step"` : ''}>${mark} <small>(${node.kind}${edges ? `: ${edges}` : ''})</small></li>`;
  });
  return html`<ol class="graph">
    ${items}
  </ol>`;
}

function childrenHtml(children: ChildNode[]): SafeHtml {
  return html`<ul>
    ${children.map(
      (c) =>
        html`<li>
          <code>${c.id}</code> —
          ${c.status}${c.outcome ? `: ${c.outcome}` : ''}${c.children.length > 0 ? childrenHtml(c.children) : ''}
        </li>`,
    )}
  </ul>`;
}

/** A session's page: what it waits for and the buttons, its graph, children, timeline, last replies and pane. */
export function sessionPage(ctx: PageContext, details: SessionDetails): SafeHtml {
  const { row } = details;
  const facts = [
    ['Status', row.status],
    ['Node', row.node ?? '—'],
    ['Turns', String(row.turns)],
    ['Since', toTheSecond(row.since)],
    ['Session directory', row.sessionDir],
    ['Pull requests', row.pullRequests.join(', ') || '—'],
  ] as const;
  const body = html`<header>
      <p><a href="/">← the board</a></p>
      <h1>${row.session}</h1>
      ${row.goal ? html`<p>${row.goal}</p>` : ''}
    </header>
    <main id="main">
      <dl class="facts">
        ${facts.map(
          ([k, v]) =>
            html`<dt>${k}</dt>
              <dd>${v}</dd>`,
        )}
      </dl>
      ${row.webUi ? html`<p><a href="${row.webUi}">Open in the Temporal Web UI</a></p>` : ''}
      ${row.attach ? html`<p>Attach: <code class="copy">${row.attach}</code></p>` : ''}
      ${
        row.waiting
          ? html`<section aria-labelledby="h-asked">
              <h2 id="h-asked">Needs you: ${row.waiting.reason}</h2>
              <p>${row.waiting.detail}</p>
            </section>`
          : ''
      }
      ${actions(ctx, row)}
      ${
        details.graph
          ? html`<section aria-labelledby="h-graph">
              <h2 id="h-graph">Process graph</h2>
              ${graphHtml(details.graph, row.node)}
            </section>`
          : ''
      }
      ${
        details.children.length > 0
          ? html`<section aria-labelledby="h-children">
              <h2 id="h-children">Children</h2>
              ${childrenHtml(details.children)}
            </section>`
          : ''
      }
      <section aria-labelledby="h-pane">
        <h2 id="h-pane">Pane</h2>
        ${
          details.screen === null
            ? html`<p>No pane.</p>`
            : html`<pre class="pane" id="pane" aria-label="the pane's last screen, read-only">
${details.screen}</pre>`
        }
      </section>
      <section aria-labelledby="h-replies">
        <h2 id="h-replies">Last replies</h2>
        ${
          details.replies.length === 0
            ? html`<p>No turn has ended yet.</p>`
            : details.replies.map(
                (r) =>
                  html`<article class="reply">
                    <h3>Turn ${r.iteration}${r.success ? '' : ' (failed)'}</h3>
                    ${r.error ? html`<p>Error: ${r.error}</p>` : ''}${renderMarkdown(r.reply)}
                  </article>`,
              )
        }
      </section>
      <section aria-labelledby="h-timeline">
        <h2 id="h-timeline">Timeline</h2>
        <ol class="timeline" reversed>
          ${details.timeline.map(
            (e) =>
              html`<li>
                <time datetime="${e.ts}">${toTheSecond(e.ts)}</time> <strong>${e.type}</strong> ${e.detail}
              </li>`,
          )}
        </ol>
      </section>
    </main>`;
  return layout(`${row.session} — the-loop board`, body, html`data-live="/session/${row.id}/live"`);
}
