import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goalRoots, goalRootsDir, rememberGoalRoot } from '../../../src/session/goal-roots';
import { sessionsRoot } from '../../../src/session/paths';

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'goal-root-project-'));
  mkdirSync(sessionsRoot(dir), { recursive: true });
  return dir;
}

describe('the directories goal sessions were started from', () => {
  it('records each directory once, and lists those whose sessions are still there, the board’s own first', () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goal-roots-'));
    const [own, other, gone] = [project(), project(), mkdtempSync(join(tmpdir(), 'goal-root-empty-'))];
    rememberGoalRoot(stateRoot, other);
    rememberGoalRoot(stateRoot, `${other}/.`);
    rememberGoalRoot(stateRoot, gone);
    rmSync(join(gone, '.loopy_loop'), { recursive: true });
    expect(readdirSync(goalRootsDir(stateRoot))).toHaveLength(2);
    expect(goalRoots(stateRoot, own)).toEqual([own, other]);
  });

  it('skips an entry it cannot read, and works before any was recorded', () => {
    const stateRoot = mkdtempSync(join(tmpdir(), 'goal-roots-'));
    const own = project();
    expect(goalRoots(stateRoot, own)).toEqual([own]);
    const other = project();
    rememberGoalRoot(stateRoot, other);
    writeFileSync(join(goalRootsDir(stateRoot), 'torn.json'), '{"cwd":');
    expect(goalRoots(stateRoot, own)).toEqual([own, other]);
  });
});
