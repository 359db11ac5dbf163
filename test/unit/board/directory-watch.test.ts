import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryWatch } from '../../../src/board/directory-watch';
import { waitFor } from '../../support/wait';

describe('the board’s directory watch', () => {
  const root = mkdtempSync(join(tmpdir(), 'directory-watch-'));
  let changes = 0;
  const watch = new DirectoryWatch(() => (changes += 1));
  afterAll(() => {
    watch.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('calls back when a record is replaced by rename, as the writers replace them', async () => {
    const registry = join(root, 'registry');
    mkdirSync(registry);
    watch.set([{ dir: registry }]);
    const before = changes;
    writeFileSync(join(registry, '.a.json.tmp'), '{}');
    renameSync(join(registry, '.a.json.tmp'), join(registry, 'a.json'));
    await waitFor('a change in the registry', () => changes > before);
  });

  it('skips a directory that is not there yet, and watches it once a later set names it again', async () => {
    const session = join(root, 'session');
    watch.set([{ dir: session, only: 'state.json' }]);
    mkdirSync(session);
    watch.set([{ dir: session, only: 'state.json' }]);
    const before = changes;
    writeFileSync(join(session, 'state.json'), '{}');
    await waitFor('state.json changed', () => changes > before);
  });

  it('stops watching a directory the next set leaves out', async () => {
    const kept = join(root, 'kept');
    const dropped = join(root, 'dropped');
    mkdirSync(kept);
    mkdirSync(dropped);
    watch.set([{ dir: dropped }, { dir: kept }]);
    watch.set([{ dir: kept }]);
    rmSync(dropped, { recursive: true });
    const before = changes;
    // a removed directory's watcher would fail; the kept one still reports
    writeFileSync(join(kept, 'b.json'), '{}');
    await waitFor('a change in the kept directory', () => changes > before);
  });
});
