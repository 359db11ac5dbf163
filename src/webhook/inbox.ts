import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { GroupCommitFile } from './group-commit';
import { MAX_PAYLOAD_DEPTH } from './limits';
import { parseBoundedJson, type BoundedJsonError } from '../json/bounded-json';

export function deliveryInboxFile(stateDir: string): string {
  return join(stateDir, 'webhook', 'inbox.jsonl');
}

const envelope = {
  deliveryId: z.string().min(1),
  event: z.string().min(1),
  /** The delivery's keys in the DeliveryLedger: committed there once it was handled. */
  keys: z.array(z.string().min(1)).min(1),
  receivedAt: z.number(),
};

/** As the receiver writes it: the body's bytes as received, in base64; parsed only when forwarded. */
const storedDelivery = z.object({ ...envelope, body: z.string().min(1) }).strict();

/** The parsed form the forwarder hands on; also the line the receiver wrote before it kept the body raw. */
const queuedDelivery = z.object({ ...envelope, payload: z.unknown() }).strict();

/** One line of `<stateDir>/webhook/inbox.jsonl`: a delivery accepted by the receiver, or its acknowledgement. */
export const inboxLineSchema = z.union([
  storedDelivery,
  queuedDelivery,
  z.object({ ack: z.string().min(1) }).strict(),
]);

export type InboxLine = z.infer<typeof inboxLineSchema>;
export type QueuedDelivery = z.infer<typeof queuedDelivery>;
/** A delivery in the inbox, as written: its body raw, or (older lines) parsed. */
export type AcceptedDelivery = z.infer<typeof storedDelivery> | QueuedDelivery;
/** A delivery as the receiver accepted it: the body is the bytes received, whose signature was checked. */
export type ReceivedDelivery = Omit<z.infer<typeof storedDelivery>, 'body'> & { body: Buffer };

function encode(line: InboxLine): string {
  return JSON.stringify(inboxLineSchema.parse(line));
}

/**
 * The receiver's line: the body in base64, which needs no escaping, spliced in. JSON.stringify would scan the
 * 16 KB string for characters to escape, which cost the accepting path more than the signature's HMAC.
 */
function encodeReceived(received: ReceivedDelivery): { line: string; stored: AcceptedDelivery } {
  const stored = storedDelivery.parse({ ...received, body: received.body.toString('base64') });
  const { body, ...rest } = stored;
  return { line: `${JSON.stringify(rest).slice(0, -1)},"body":"${body}"}`, stored };
}

/** The receiver's maxBodyBytes bounded the body before it was queued. */
const PAYLOAD_BOUNDS = { maxDepth: MAX_PAYLOAD_DEPTH, maxBytes: Number.POSITIVE_INFINITY };

/**
 * The delivery with its payload parsed (bounded to MAX_PAYLOAD_DEPTH), or why it cannot be: the receiver no
 * longer parses a body before its 202, so a signed body that is not JSON is refused here, by the forwarder.
 */
export function openDelivery(delivery: AcceptedDelivery): QueuedDelivery | { refused: string } {
  if (!('body' in delivery)) return delivery;
  const { body, ...rest } = delivery;
  try {
    const text = Buffer.from(body, 'base64').toString('utf8');
    const payload = parseBoundedJson(text, PAYLOAD_BOUNDS);
    return { ...rest, payload };
  } catch (error) {
    const refused = error as BoundedJsonError;
    return { refused: refused.problem === 'not-json' ? 'body is not JSON' : refused.message };
  }
}

/**
 * A line wraps a payload the receiver bounded to MAX_PAYLOAD_DEPTH, one level down. The depth is checked again
 * because the bridge walks and stringifies a payload: a deep one (a file from before the bound, or edited) would
 * overflow the stack there. Bytes are not capped: the receiver's maxBodyBytes bounded each line, and the file is
 * read whole anyway.
 */
const LINE_BOUNDS = { maxDepth: MAX_PAYLOAD_DEPTH + 1, maxBytes: Number.POSITIVE_INFINITY };

/**
 * Past this size the file is rewritten with only its unacknowledged deliveries, once those are under half. A
 * rewrite holds up the appends behind it (temp file, fsync, rename), so it should be rare: at 8 MiB a burst of
 * 16 KB lines rewrote the file every ~500 deliveries. 64 MiB is still read whole at start in well under a second.
 */
export const DEFAULT_COMPACT_BYTES = 64 * 1024 * 1024;

/**
 * The receiver's durable inbox: a verified delivery is appended (group-committed fdatasync) before the receiver
 * answers 202, and acknowledged by an `{"ack": deliveryId}` line once the forwarder handed it on. An ack refers
 * to the latest delivery with that id before it. On start, every delivery without an ack is forwarded again.
 */
export class DeliveryInbox {
  /** Unacknowledged deliveries in arrival order, with their line (compaction writes it again as it is). */
  private readonly unacked = new Map<string, { delivery: AcceptedDelivery; line: string }>();
  private liveBytes = 0;
  private fileBytes = 0;
  private readonly log: GroupCommitFile;

  private constructor(
    readonly file: string,
    private readonly compactBytes: number,
  ) {
    this.log = new GroupCommitFile(file);
  }

  static async open(
    file: string,
    options: { compactBytes?: number; onBadLine?: (problem: string) => void } = {},
  ): Promise<DeliveryInbox> {
    const inbox = new DeliveryInbox(file, options.compactBytes ?? DEFAULT_COMPACT_BYTES);
    await mkdir(dirname(file), { recursive: true });
    let text = '';
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    inbox.fileBytes = text.length;
    for (const [index, raw] of text.split('\n').entries()) {
      if (raw.trim() === '') continue;
      let parsed: ReturnType<typeof inboxLineSchema.safeParse>;
      try {
        parsed = inboxLineSchema.safeParse(parseBoundedJson(raw, LINE_BOUNDS));
      } catch (error) {
        // a torn last line: that delivery was never answered 202, so GitHub still has it
        const refused = error as BoundedJsonError;
        const reason = refused.problem === 'not-json' ? 'not JSON' : refused.message;
        options.onBadLine?.(`${file}:${index + 1}: ${reason}, skipped`);
        continue;
      }
      if (!parsed.success) {
        options.onBadLine?.(`${file}:${index + 1}: not an inbox line, skipped`);
        continue;
      }
      inbox.apply(parsed.data, raw);
    }
    return inbox;
  }

  private apply(line: InboxLine, text: string): void {
    if ('ack' in line) {
      const entry = this.unacked.get(line.ack);
      if (entry) this.liveBytes -= entry.line.length + 1;
      this.unacked.delete(line.ack);
    } else {
      this.unacked.delete(line.deliveryId);
      this.unacked.set(line.deliveryId, { delivery: line, line: text });
      this.liveBytes += text.length + 1;
    }
  }

  /** Deliveries not acknowledged, oldest first. */
  pending(): AcceptedDelivery[] {
    return [...this.unacked.values()].map((entry) => entry.delivery);
  }

  get size(): number {
    return this.unacked.size;
  }

  /**
   * Resolves once the delivery is on disk: as the receiver accepted it (the body raw, returned as stored), or
   * parsed.
   */
  append(delivery: ReceivedDelivery | QueuedDelivery): Promise<AcceptedDelivery> {
    if ('body' in delivery) {
      const { line, stored } = encodeReceived(delivery);
      return this.write(stored, line).then(() => stored);
    }
    return this.write(delivery, encode(delivery)).then(() => delivery);
  }

  /**
   * The delivery was handed on: it is not forwarded again after a restart. Not synced: an ack lost in a power cut
   * replays its delivery, which the ledger (or else the work-item workflow) knows as handled; a synced write per
   * group of acks held up the deliveries queued behind it for a trip to the disk.
   */
  ack(deliveryId: string): Promise<void> {
    const line = { ack: deliveryId };
    return this.write(line, encode(line), { synced: false });
  }

  /**
   * Sizes are in UTF-16 units, not bytes: exact for the receiver's lines (ASCII: base64 and a small envelope),
   * near enough for when to compact otherwise, and Buffer.byteLength would scan every 16 KB line again.
   */
  private write(line: InboxLine, text: string, options = { synced: true }): Promise<void> {
    this.apply(line, text);
    this.fileBytes += text.length + 1;
    const written = this.log.append([text], options);
    // Everything before the unacknowledged deliveries is acknowledged: rewrite the file with only those.
    if (this.fileBytes > this.compactBytes && this.liveBytes * 2 < this.fileBytes) void this.compact();
    return written;
  }

  private compact(): Promise<void> {
    const lines = [...this.unacked.values()].map((entry) => entry.line);
    this.fileBytes = this.liveBytes;
    // a failed rewrite leaves the old file, which still holds every line: only the size estimate is off
    return this.log.replace(lines.map((line) => `${line}\n`).join('')).catch(() => undefined);
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
