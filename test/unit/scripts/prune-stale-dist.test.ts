import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const SCRIPT = resolve(__dirname, '../../../scripts/prune-stale-dist.mjs');

describe('scripts/prune-stale-dist.mjs (run by `npm run build` before the incremental tsc)', () => {
  it('deletes the output of a deleted source, and its folder once empty; keeps the rest and the start-up snapshot', () => {
    const root = mkdtempSync(join(tmpdir(), 'the-loop-prune-'));
    const touch = (path: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), '');
    };
    touch('src/kept.ts');
    for (const out of ['kept.js', 'kept.js.map', 'gone.js', 'gone.js.map', 'old/verb.js'])
      touch(`dist/src/${out}`);
    touch('dist/.tsbuildinfo');
    touch('dist/snapshot/cli.js');
    execFileSync(process.execPath, [SCRIPT], { cwd: root });
    expect(existsSync(join(root, 'dist/src/kept.js'))).toBe(true);
    expect(existsSync(join(root, 'dist/src/kept.js.map'))).toBe(true);
    expect(existsSync(join(root, 'dist/.tsbuildinfo'))).toBe(true);
    expect(existsSync(join(root, 'dist/snapshot/cli.js'))).toBe(true);
    expect(existsSync(join(root, 'dist/src/gone.js'))).toBe(false);
    expect(existsSync(join(root, 'dist/src/gone.js.map'))).toBe(false);
    expect(existsSync(join(root, 'dist/src/old'))).toBe(false);
  });
});
