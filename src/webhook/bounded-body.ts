import type { IncomingMessage, ServerResponse } from 'node:http';

/** The request-body bytes held at once across all requests of one server. */
export class BodyBudget {
  private held = 0;
  constructor(readonly capacity: number) {}

  /** Takes `bytes` from the budget if they fit. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.capacity) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }

  get heldBytes(): number {
    return this.held;
  }
}

/** A body read whole, or why it was not: 413 over the per-request cap, 503 over the budget, or the sender left. */
export type BodyOutcome = { body: Buffer } | { refused: 413 | 503 } | { aborted: true };

/**
 * Reads a request body holding at most `maxBytes` of it, with the bytes taken from `budget` until the response
 * closes. A declared Content-Length is checked and taken before a byte is read (413 or 503 at once); a chunked
 * body takes from the budget as it arrives. Whatever ends the request (refusal, abort, timeout), the chunks are
 * dropped and the bytes given back, so memory held by unsigned senders is bounded while they last and none after.
 */
export function readBoundedBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  budget: BodyBudget,
): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const lengthHeader = req.headers['content-length'];
    const declared = lengthHeader === undefined ? null : Number(lengthHeader);
    if (declared !== null && declared > maxBytes) return resolve({ refused: 413 });
    let taken = 0;
    const release = () => {
      budget.give(taken);
      taken = 0;
    };
    res.once('close', release);
    if (declared !== null) {
      if (!budget.take(declared)) return resolve({ refused: 503 });
      taken = declared;
    }
    let chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (outcome: BodyOutcome) => {
      if (done) return;
      done = true;
      chunks = [];
      req.off('data', onData);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish({ refused: 413 });
      if (size > taken) {
        if (!budget.take(size - taken)) return finish({ refused: 503 });
        taken = size;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('error', () => finish({ aborted: true }));
    req.on('close', () => finish({ aborted: true }));
    req.on('end', () => {
      if (done) return;
      const body = Buffer.concat(chunks, size);
      finish({ body });
    });
  });
}

/**
 * Answers a refused body (413 over `maxBodyBytes`, 503 over the held-bytes budget) through the route's `reply`;
 * nothing more of it is read, so the connection goes once the answer is out.
 */
export function refuseBody(
  req: IncomingMessage,
  res: ServerResponse,
  refused: 413 | 503,
  maxBodyBytes: number,
  reply: (res: ServerResponse, status: number, body: Record<string, unknown>, close: boolean) => void,
): void {
  const error = refused === 413 ? `body over ${maxBodyBytes} bytes` : 'too busy, retry';
  res.once('finish', () => req.destroy());
  reply(res, refused, { error }, true);
}
