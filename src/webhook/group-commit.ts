import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { writeFilesAtomic } from '../session/atomic';

type Operation = {
  kind: 'append' | 'replace';
  text: string;
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
 */
export class GroupCommitFile {
  private queue: Operation[] = [];
  private flushing: Promise<void> | null = null;
  private handle: FileHandle | null = null;

  /**
   * `synced: false` for a record whose loss in a power cut costs a repeat, not a delivery: its appends still
   * reach the kernel before they resolve, which a crash of the process does not undo.
   */
  constructor(
    readonly file: string,
    private readonly options: { synced: boolean } = { synced: true },
  ) {}

  /** Resolves once the lines are written (and on disk, when synced). */
  append(lines: readonly string[]): Promise<void> {
    return this.enqueue('append', lines.map((line) => `${line}\n`).join(''));
  }

  /** Resolves once `text` replaced the file's content on disk. */
  replace(text: string): Promise<void> {
    return this.enqueue('replace', text);
  }

  private enqueue(kind: Operation['kind'], text: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ kind, text, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const head = this.queue[0] as Operation;
      const end = head.kind === 'replace' ? 1 : this.queue.findIndex((op) => op.kind === 'replace');
      const batch = this.queue.splice(0, end < 0 ? this.queue.length : end);
      try {
        if (head.kind === 'replace') {
          await this.handle?.close();
          this.handle = null;
          await writeFilesAtomic([{ file: this.file, data: head.text }]);
        } else {
          this.handle ??= await open(this.file, this.options.synced ? APPEND_DSYNC : APPEND, 0o644);
          const data = Buffer.from(batch.map((op) => op.text).join(''));
          // a write may be short; O_APPEND puts each rest at the end, after what came before it
          for (let at = 0; at < data.length;) at += (await this.handle.write(data, at)).bytesWritten;
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
    await this.handle?.close();
    this.handle = null;
  }
}
