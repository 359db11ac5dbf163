import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../session/atomic';
import { GroupCommitFile } from './group-commit';

/** GitHub lets an operator redeliver a delivery for 3 days; keep a week. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000;

export function deliveryLedgerFile(stateDir: string): string {
  return join(stateDir, 'webhook', 'deliveries.jsonl');
}

export type DeliveryState = 'new' | 'in-flight' | 'done';

/**
 * The record of handled deliveries: `<stateDir>/webhook/deliveries.jsonl`, one `{"id","at"}` line per handled
 * delivery, appended in groups (one write covers every delivery that finished while the previous one ran). A
 * delivery is claimed in memory while it is queued and handled, so a duplicate is refused, and recorded only once
 * it was acted on. The appends are not synced: a record lost to a power cut (a crash of the process loses none)
 * lets a redelivery through again, which the work-item workflow drops as an event id it has seen; a sync per
 * group cost the receiver a second synced write per burst beside its inbox's.
 *
 * Each delivery is recorded under two keys: its X-GitHub-Delivery id and its body's signature. The header is not
 * covered by the signature, so a captured body replayed under a fresh id is still the same delivery.
 */
export class DeliveryLedger {
  private readonly done = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  private readonly log: GroupCommitFile;

  private constructor(
    readonly file: string,
    private readonly retentionMs: number,
    private readonly now: () => number,
  ) {
    this.log = new GroupCommitFile(file);
  }

  static open(file: string, options: { retentionMs?: number; now?: () => number } = {}): DeliveryLedger {
    const ledger = new DeliveryLedger(
      file,
      options.retentionMs ?? DEFAULT_RETENTION_MS,
      options.now ?? Date.now,
    );
    ledger.load();
    return ledger;
  }

  private load(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    if (!existsSync(this.file)) return;
    const cutoff = this.now() - this.retentionMs;
    let lines = 0;
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines++;
      try {
        const entry = JSON.parse(line) as { id?: unknown; at?: unknown };
        if (typeof entry.id === 'string' && typeof entry.at === 'number' && entry.at >= cutoff)
          this.done.set(entry.id, entry.at);
      } catch {
        // a torn last line: the delivery it recorded was not acknowledged, so it may come again
      }
    }
    if (lines > 1000 && lines > 2 * this.done.size) this.compact();
  }

  private compact(): void {
    const text = [...this.done].map(([id, at]) => JSON.stringify({ id, at })).join('\n');
    writeFileAtomic(this.file, text === '' ? '' : `${text}\n`);
  }

  get size(): number {
    return this.done.size;
  }

  state(keys: readonly string[]): DeliveryState {
    if (keys.some((k) => this.done.has(k))) return 'done';
    if (keys.some((k) => this.inFlight.has(k))) return 'in-flight';
    return 'new';
  }

  /** Claims the delivery for handling; false when it is done or being handled. */
  claim(keys: readonly string[]): boolean {
    if (this.state(keys) !== 'new') return false;
    for (const k of keys) this.inFlight.add(k);
    return true;
  }

  /** The delivery failed: release it so that a redelivery is handled. */
  release(keys: readonly string[]): void {
    for (const k of keys) this.inFlight.delete(k);
  }

  /** Records the delivery as handled; resolves once the record is written (not synced: see the class). */
  commit(keys: readonly string[]): Promise<void> {
    const at = this.now();
    for (const k of keys) {
      this.inFlight.delete(k);
      this.done.set(k, at);
    }
    return this.log.append(
      keys.map((id) => JSON.stringify({ id, at })),
      { synced: false },
    );
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
