import { watch, type FSWatcher } from 'node:fs';

export interface WatchedDirectory {
  dir: string;
  /** Only this file's changes count (a session directory's state.json, not its growing logs). */
  only?: string;
}

/** A burst of changes (a record's temporary file and its rename) becomes one call. */
const SETTLE_MS = 30;

/**
 * Calls `changed` shortly after something changes in the watched directories (inotify through fs.watch), so the
 * board reads its records when they change instead of reading a thousand records several times a second. The set
 * is given anew after each read; a directory that does not exist yet is skipped, and the board's slow fallback read
 * finds it later.
 */
export class DirectoryWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly changed: () => void,
    /** Beyond this many, directories are left to the fallback read: inotify watches are a per-user limit. */
    private readonly limit = 4096,
  ) {}

  set(directories: readonly WatchedDirectory[]): void {
    const wanted = new Map<string, WatchedDirectory>();
    for (const entry of directories) {
      if (wanted.size >= this.limit) break;
      wanted.set(`${entry.dir}\u0000${entry.only ?? ''}`, entry);
    }
    for (const [key, watcher] of this.watchers) {
      if (wanted.has(key)) continue;
      watcher.close();
      this.watchers.delete(key);
    }
    for (const [key, entry] of wanted) {
      if (this.watchers.has(key)) continue;
      try {
        const watcher = watch(entry.dir, { persistent: false }, (_event, name) => {
          if (entry.only === undefined || name === entry.only) this.settle();
        });
        // a watched directory removed, or the limit reached: dropped, and taken up again by a later set()
        watcher.on('error', () => {
          watcher.close();
          this.watchers.delete(key);
        });
        this.watchers.set(key, watcher);
      } catch {
        // not there (yet), or no watches left: the fallback read covers it
      }
    }
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private settle(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.changed();
    }, SETTLE_MS);
    this.timer.unref();
  }
}
