import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { writeFilesAtomic } from '../session/atomic';

type Operation = {
  kind: 'append' | 'replace';
  text: string;
  synced: boolean;
  resolve: () => void;
  reject: (error: Error) => void;
};

/**
 * Opened with O_DSYNC: a write returns once its data is on disk, so a group costs one call on libuv's thread pool
 * instead of a write and then an fdatasync. Each call is a wake-up of a pool thread and of the event loop, and on
 * a busy machine every wake-up waits for a core: halving them shortened a group's round trip as much as the sync.
 */
const APPEND = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND;
const APPEND_DSYNC = APPEND | constants.O_DSYNC;

/**
 * An append-only file whose appends are synced in groups: every append that arrives while a group is being
 * written is written by the next one, so a burst costs one synced write per group, not one per append.
 * `replace` rewrites the whole file atomically in sequence with the appends (after every earlier one, before
 * any later).
 *
 * An append can be unsynced: a record whose loss in a power cut costs a repeat, not a delivery (an inbox's ack,
 * a ledger line). It reaches the kernel before it resolves, which a crash of the process does not undo. A group
 * of those alone is written without a sync, so it holds up the synced appends behind it for a copy into the page
 * cache, not for a trip to the disk; a group with any synced append is synced whole.
 */
export class GroupCommitFile {
  private queue: Operation[] = [];
  private flushing: Promise<void> | null = null;
  /** Both open the same file for appending (O_APPEND): one with O_DSYNC, one without. */
  private handles: { synced: FileHandle | null; unsynced: FileHandle | null } = {
    synced: null,
    unsynced: null,
  };

  constructor(readonly file: string) {}

  /** Resolves once the lines are written: on disk when synced, else in the kernel. */
  append(lines: readonly string[], options: { synced: boolean } = { synced: true }): Promise<void> {
    return this.enqueue('append', lines.map((line) => `${line}\n`).join(''), options.synced);
  }

  /** Resolves once `text` replaced the file's content on disk. */
  replace(text: string): Promise<void> {
    return this.enqueue('replace', text, true);
  }

  private enqueue(kind: Operation['kind'], text: string, synced: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ kind, text, synced, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async closeHandles(): Promise<void> {
    const { synced, unsynced } = this.handles;
    this.handles = { synced: null, unsynced: null };
    await synced?.close();
    await unsynced?.close();
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const head = this.queue[0] as Operation;
      const end = head.kind === 'replace' ? 1 : this.queue.findIndex((op) => op.kind === 'replace');
      const batch = this.queue.splice(0, end < 0 ? this.queue.length : end);
      try {
        if (head.kind === 'replace') {
          await this.closeHandles();
          await writeFilesAtomic([{ file: this.file, data: head.text }]);
        } else {
          const synced = batch.some((op) => op.synced);
          const kind = synced ? 'synced' : 'unsynced';
          const handle = (this.handles[kind] ??= await open(
            this.file,
            synced ? APPEND_DSYNC : APPEND,
            0o644,
          ));
          const data = Buffer.from(batch.map((op) => op.text).join(''));
          // a write may be short; O_APPEND puts each rest at the end, after what came before it
          for (let at = 0; at < data.length;) at += (await handle.write(data, at)).bytesWritten;
        }
        for (const op of batch) op.resolve();
      } catch (error) {
        for (const op of batch) op.reject(error as Error);
      }
    }
    // in the same tick as the empty queue was seen: an append made by a continuation of the last batch starts a
    // flush of its own instead of waiting for this one, which is over
    this.flushing = null;
  }

  async close(): Promise<void> {
    await this.flushing;
    await this.closeHandles();
  }
}
