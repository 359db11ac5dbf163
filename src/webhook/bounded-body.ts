import type { IncomingMessage, ServerResponse } from 'node:http';
import { peerOf } from './peer';

/**
 * The request-body bytes held at once across all requests of one server, and by each remote peer: one peer
 * cannot hold more than `peerCapacity` of the whole.
 */
export class BodyBudget {
  private held = 0;
  private readonly byPeer = new Map<string, number>();
  constructor(
    readonly capacity: number,
    readonly peerCapacity: number,
  ) {}

  /** Takes `bytes` for `peer` if they fit both the whole budget and the peer's share. */
  take(peer: string, bytes: number): boolean {
    const peerHeld = this.byPeer.get(peer) ?? 0;
    if (this.held + bytes > this.capacity || peerHeld + bytes > this.peerCapacity) return false;
    this.held += bytes;
    this.byPeer.set(peer, peerHeld + bytes);
    return true;
  }

  give(peer: string, bytes: number): void {
    if (bytes === 0) return;
    this.held = Math.max(0, this.held - bytes);
    const left = (this.byPeer.get(peer) ?? 0) - bytes;
    if (left > 0) this.byPeer.set(peer, left);
    else this.byPeer.delete(peer);
  }

  get heldBytes(): number {
    return this.held;
  }
}

export type BodyRefusal = 408 | 413 | 503;

/**
 * A body read whole, or why it was not: 408 past the body deadline, 413 over the per-request cap, 503 over the
 * budget or the peer's share of it, or the sender left.
 */
export type BodyOutcome = { body: Buffer } | { refused: BodyRefusal } | { aborted: true };

export interface BodyBounds {
  maxBytes: number;
  budget: BodyBudget;
  /** From the call (the headers are in) to the body's last byte. */
  deadlineMs: number;
}

/**
 * Reads a request body holding at most `maxBytes` of it, with the bytes taken from `budget` (charged to the
 * remote peer) until the response closes. A declared Content-Length is checked and taken before a byte is read
 * (413 or 503 at once); a chunked body takes from the budget as it arrives. A body not whole by the deadline is
 * refused 408. Whatever ends the read short (refusal, abort), the chunks are dropped and the bytes given back at
 * once, so memory held by unsigned senders is bounded while they last and none after.
 */
export function readBoundedBody(
  req: IncomingMessage,
  res: ServerResponse,
  { maxBytes, budget, deadlineMs }: BodyBounds,
): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const lengthHeader = req.headers['content-length'];
    const declared = lengthHeader === undefined ? null : Number(lengthHeader);
    if (declared !== null && declared > maxBytes) return resolve({ refused: 413 });
    const peer = peerOf(req.socket.remoteAddress);
    let taken = 0;
    const release = () => {
      budget.give(peer, taken);
      taken = 0;
    };
    res.once('close', release);
    if (declared !== null) {
      if (!budget.take(peer, declared)) return resolve({ refused: 503 });
      taken = declared;
    }
    let chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (outcome: BodyOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      chunks = [];
      req.off('data', onData);
      // a body read whole is held until its answer; anything else is dropped, so its bytes go back now
      if (!('body' in outcome)) release();
      resolve(outcome);
    };
    const deadline = setTimeout(() => finish({ refused: 408 }), deadlineMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish({ refused: 413 });
      if (size > taken) {
        if (!budget.take(peer, size - taken)) return finish({ refused: 503 });
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

const REFUSAL_TEXT: Record<BodyRefusal, (maxBodyBytes: number) => string> = {
  408: () => 'body not received in time',
  413: (maxBodyBytes) => `body over ${maxBodyBytes} bytes`,
  503: () => 'too busy, retry',
};

/**
 * Answers a refused body (408 past the body deadline, 413 over `maxBodyBytes`, 503 over the held-bytes budget)
 * through the route's `reply`; nothing more of it is read, so the connection goes once the answer is out.
 */
export function refuseBody(
  req: IncomingMessage,
  res: ServerResponse,
  refused: BodyRefusal,
  maxBodyBytes: number,
  reply: (res: ServerResponse, status: number, body: Record<string, unknown>, close: boolean) => void,
): void {
  res.once('finish', () => req.destroy());
  reply(res, refused, { error: REFUSAL_TEXT[refused](maxBodyBytes) }, true);
}
