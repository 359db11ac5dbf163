import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { GroupCommitFile } from './group-commit';
import { MAX_PAYLOAD_DEPTH } from './limits';
import { parseBoundedJson, type BoundedJsonError } from '../json/bounded-json';

export function deliveryInboxFile(stateDir: string): string {
  return join(stateDir, 'webhook', 'inbox.jsonl');
}

const queuedDelivery = z
  .object({
    deliveryId: z.string().min(1),
    event: z.string().min(1),
    /** The delivery's keys in the DeliveryLedger: committed there once it was handled. */
    keys: z.array(z.string().min(1)).min(1),
    payload: z.unknown(),
    receivedAt: z.number(),
  })
  .strict();

/** One line of `<stateDir>/webhook/inbox.jsonl`: a delivery accepted by the receiver, or its acknowledgement. */
export const inboxLineSchema = z.union([queuedDelivery, z.object({ ack: z.string().min(1) }).strict()]);

export type InboxLine = z.infer<typeof inboxLineSchema>;
export type QueuedDelivery = z.infer<typeof queuedDelivery>;

function encode(line: InboxLine): string {
  return JSON.stringify(inboxLineSchema.parse(line));
}

/**
 * A line wraps a payload the receiver bounded to MAX_PAYLOAD_DEPTH, one level down. The depth is checked again
 * because compaction stringifies every pending line: a deep one (a file from before the bound, or edited) would
 * overflow the stack there. Bytes are not capped: the receiver's maxBodyBytes bounded each line, and the file is
 * read whole anyway.
 */
const LINE_BOUNDS = { maxDepth: MAX_PAYLOAD_DEPTH + 1, maxBytes: Number.POSITIVE_INFINITY };

/** Past this size the file is rewritten with only its unacknowledged deliveries, once those are under half. */
export const DEFAULT_COMPACT_BYTES = 8 * 1024 * 1024;

/**
 * The receiver's durable inbox: a verified delivery is appended (group-committed fdatasync) before the receiver
 * answers 202, and acknowledged by an `{"ack": deliveryId}` line once the forwarder handed it on. An ack refers
 * to the latest delivery with that id before it. On start, every delivery without an ack is forwarded again.
 */
export class DeliveryInbox {
  /** Unacknowledged deliveries in arrival order, with the length of their line. */
  private readonly unacked = new Map<string, { delivery: QueuedDelivery; bytes: number }>();
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
    inbox.fileBytes = Buffer.byteLength(text);
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
      inbox.apply(parsed.data, Buffer.byteLength(raw) + 1);
    }
    return inbox;
  }

  private apply(line: InboxLine, bytes: number): void {
    if ('ack' in line) {
      const entry = this.unacked.get(line.ack);
      if (entry) this.liveBytes -= entry.bytes;
      this.unacked.delete(line.ack);
    } else {
      this.unacked.delete(line.deliveryId);
      this.unacked.set(line.deliveryId, { delivery: line, bytes });
      this.liveBytes += bytes;
    }
  }

  /** Deliveries not acknowledged, oldest first. */
  pending(): QueuedDelivery[] {
    return [...this.unacked.values()].map((entry) => entry.delivery);
  }

  get size(): number {
    return this.unacked.size;
  }

  /** Resolves once the delivery is on disk. */
  append(delivery: QueuedDelivery): Promise<void> {
    return this.write(delivery);
  }

  /** The delivery was handed on: it is not forwarded again after a restart. */
  ack(deliveryId: string): Promise<void> {
    return this.write({ ack: deliveryId });
  }

  private write(line: InboxLine): Promise<void> {
    const text = encode(line);
    const bytes = Buffer.byteLength(text) + 1;
    this.apply(line, bytes);
    this.fileBytes += bytes;
    const written = this.log.append([text]);
    // Everything before the unacknowledged deliveries is acknowledged: rewrite the file with only those.
    if (this.fileBytes > this.compactBytes && this.liveBytes * 2 < this.fileBytes) void this.compact();
    return written;
  }

  private compact(): Promise<void> {
    const lines = [...this.unacked.values()].map((entry) => encode(entry.delivery));
    this.fileBytes = this.liveBytes;
    // a failed rewrite leaves the old file, which still holds every line: only the size estimate is off
    return this.log.replace(lines.map((line) => `${line}\n`).join('')).catch(() => undefined);
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
