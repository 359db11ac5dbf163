import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeJsonAtomic } from '../session/json-file';
import { freshPaneState, paneStateSchema, type PaneState } from '../work-item/host/pane-state';

/**
 * The hosted panes' state files, one per work item under the hook channel's directory: a restarted worker finds its
 * predecessor's panes in them. Each pane's file is changed one change at a time, since hooks report concurrently.
 */
export interface PaneFiles {
  readonly dir: string;
  /** A pane's short name: its state file's, its claude debug log's, its tmux buffers'. */
  nameOf(workItem: string): string;
  fileOf(workItem: string): string;
  /** The pane's claude writes its errors here (`--debug-file`): a refused credential shows in it. */
  debugLogOf(workItem: string): string;
  /** A pane's state, or null when its file is missing or unreadable. */
  read(file: string): Promise<PaneState | null>;
  /** Reads, changes and writes one pane's state, after the changes to it that came before. */
  update<T>(workItem: string, fn: (state: PaneState) => Promise<T> | T): Promise<T>;
}

export async function openPaneFiles(channelDir: string): Promise<PaneFiles> {
  const dir = join(channelDir, 'panes');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const nameOf = (workItem: string) => createHash('sha256').update(workItem).digest('hex').slice(0, 24);
  const fileOf = (workItem: string) => join(dir, `${nameOf(workItem)}.json`);

  async function read(file: string): Promise<PaneState | null> {
    try {
      return paneStateSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    } catch {
      return null;
    }
  }

  const chains = new Map<string, Promise<unknown>>();
  function update<T>(workItem: string, fn: (state: PaneState) => Promise<T> | T): Promise<T> {
    const file = fileOf(workItem);
    const run = (chains.get(file) ?? Promise.resolve()).then(async () => {
      const state = (await read(file)) ?? freshPaneState();
      state.work_item = workItem;
      const result = await fn(state);
      writeJsonAtomic(file, paneStateSchema, state);
      return result;
    });
    chains.set(
      file,
      run.catch(() => undefined),
    );
    return run;
  }

  return {
    dir,
    nameOf,
    fileOf,
    debugLogOf: (workItem) => join(dir, `${nameOf(workItem)}.claude-debug.log`),
    read,
    update,
  };
}
