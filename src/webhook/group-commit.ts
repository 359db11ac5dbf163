import { open, type FileHandle } from 'node:fs/promises';
import { writeFilesAtomic } from '../session/atomic';

type Operation = {
  kind: 'append' | 'replace';
  text: string;
  resolve: () => void;
  reject: (error: Error) => void;
};

/**
 * An append-only file whose appends are fdatasync'ed in groups: every append that arrives while a sync runs is
 * written and synced by the next one, so a burst costs one sync per group, not one per append. `replace`
 * rewrites the whole file atomically in sequence with the appends (after every earlier one, before any later).
 */
export class GroupCommitFile {
  private queue: Operation[] = [];
  private flushing: Promise<void> | null = null;
  private handle: FileHandle | null = null;

  constructor(readonly file: string) {}

  /** Resolves once the lines are on disk. */
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
          this.handle ??= await open(this.file, 'a');
          await this.handle.appendFile(batch.map((op) => op.text).join(''));
          await this.handle.datasync();
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
