import type { ServerResponse } from 'node:http';
import { byId, diffRows, isEmpty, type RenderedRow, type RowChanges } from './diff';

/** How often an idle event stream says it is alive, so that proxies and browsers keep it open. */
const KEEPALIVE_MS = 15_000;

/**
 * The rows every page shows, and the browsers listening for their changes (server-sent events): each update sends
 * only the rows that changed, numbered by version so that a page that missed one gets the whole list once.
 */
export class LiveRows {
  private rows = new Map<string, RenderedRow>();
  private readonly streams = new Set<ServerResponse>();
  private readonly keepalive: NodeJS.Timeout;
  version = 0;

  constructor() {
    this.keepalive = setInterval(() => {
      for (const res of this.streams) res.write(': alive\n\n');
    }, KEEPALIVE_MS);
    this.keepalive.unref();
  }

  current(): RenderedRow[] {
    return [...this.rows.values()];
  }

  get(id: string): RenderedRow | undefined {
    return this.rows.get(id);
  }

  /** Takes the new rows; when any changed, the next version goes to every stream. */
  update(rows: readonly RenderedRow[]): RowChanges {
    const next = byId(rows);
    const changes = diffRows(this.rows, next);
    this.rows = next;
    if (isEmpty(changes)) return changes;
    this.version++;
    for (const res of this.streams) send(res, this.version, changes);
    return changes;
  }

  /** A new stream: it hears every later change, and the whole list first when its page is older than now. */
  listen(res: ServerResponse, since: number | null): void {
    openStream(res);
    this.streams.add(res);
    res.on('close', () => this.streams.delete(res));
    if (since !== this.version) send(res, this.version, { upsert: this.current(), remove: [], full: true });
  }

  close(): void {
    clearInterval(this.keepalive);
    for (const res of this.streams) res.end();
    this.streams.clear();
  }
}

/** The headers of an event stream. */
export function openStream(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 1000\n\n');
}

function send(res: ServerResponse, version: number, changes: RowChanges & { full?: boolean }): void {
  res.write(`id: ${version}\nevent: rows\ndata: ${JSON.stringify(changes)}\n\n`);
}
