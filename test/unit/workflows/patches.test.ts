import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as goalSessionPatches from '../../../src/workflows/goal-session/patches';
import * as workItemPatches from '../../../src/workflows/work-item/patches';

// Each workflow folder lists its patch ids in its own patches.ts: every patched() call names one of them, every id
// listed is still called (a retired id is deleted, docs/operations.md), and no id serves two changes.
const WORKFLOWS = join(__dirname, '..', '..', '..', 'src', 'workflows');
const folders = { 'goal-session': goalSessionPatches, 'work-item': workItemPatches } as const;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [readFileSync(join(dir, entry.name), 'utf8')]
        : [],
  );
}

function patchedArguments(text: string): string[] {
  return [...text.matchAll(/patched\(\s*([^)]*?)\s*\)/g)].map((match) => match[1] ?? '');
}

describe('patch ids', () => {
  it.each(Object.entries(folders))(
    '%s: every patched() names an id of its patches.ts, and every id is used',
    (folder, ids) => {
      const calls = sources(join(WORKFLOWS, folder)).flatMap(patchedArguments);
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.filter((call) => !(call in ids))).toEqual([]);
      expect(Object.keys(ids).filter((name) => !calls.includes(name))).toEqual([]);
    },
  );

  it('no patched() outside the folders that list their ids', () => {
    const listed = new Set(Object.keys(folders));
    const others = readdirSync(WORKFLOWS, { withFileTypes: true })
      .filter((entry) => !listed.has(entry.name))
      .flatMap((entry) =>
        entry.isDirectory()
          ? sources(join(WORKFLOWS, entry.name))
          : [readFileSync(join(WORKFLOWS, entry.name), 'utf8')],
      );
    expect(others.flatMap(patchedArguments)).toEqual([]);
  });

  it('no id serves two changes', () => {
    const all = Object.values(folders).flatMap((ids) => Object.values(ids));
    expect(new Set(all).size).toBe(all.length);
  });
});
