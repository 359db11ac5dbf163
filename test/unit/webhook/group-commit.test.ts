import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GroupCommitFile } from '../../../src/webhook/group-commit';

describe('GroupCommitFile', () => {
  it.each([true, false])(
    'appends made together land in the order made, a replace between them in its place (synced: %s)',
    async (synced) => {
      const file = join(mkdtempSync(join(tmpdir(), 'the-loop-group-commit-')), 'log.jsonl');
      const log = new GroupCommitFile(file);
      // all in one tick: the first starts a group, the rest queue behind it and share the next write
      const first = Array.from({ length: 50 }, (_, i) => log.append([`a${i}`], { synced }));
      const replaced = log.replace('r\n');
      const after = Array.from({ length: 50 }, (_, i) =>
        log.append([`b${i}`, `c${i}`], { synced: i % 2 === 0 && synced }),
      );
      await Promise.all([...first, replaced, ...after]);
      const expected = ['r', ...Array.from({ length: 50 }, (_, i) => [`b${i}`, `c${i}`]).flat()];
      expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toEqual(expected);
      // an append after the groups are done starts one of its own
      await log.append(['late'], { synced });
      expect(readFileSync(file, 'utf8').endsWith('c49\nlate\n')).toBe(true);
      await log.close();
    },
  );
});
