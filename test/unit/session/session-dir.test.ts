import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { readJsonFile } from '../../../src/session/json-file';
import { createSessionDirectory } from '../../../src/session/session-dir';
import { controlFileSchema, sessionFileSchema } from '../../../src/session/schemas';
import { goalHash } from '../../../src/session/session-id';

test('createSessionDirectory creates the layout once and never clobbers', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'init-'));
  const sessionDir = path.join(root, 's1');
  const session = {
    session_id: 's1',
    goal_hash: goalHash('g'),
    created_at: '2026-04-19T14:30:22.000Z',
    cwd: root,
    workflow_id: 's1',
    task_queue: 'q',
    host_queue: 'q.host.h',
    harness: 'claude' as const,
    parent_session_id: null,
    routines_file: null,
  };
  const p = createSessionDirectory({ sessionDir, goal: 'g', session, createdBy: 'coordinator' });
  expect(fs.readFileSync(p.goal, 'utf8')).toBe('g\n');
  expect(readJsonFile(p.session, sessionFileSchema)).toEqual(session);
  expect(readJsonFile(p.control, controlFileSchema)).toMatchObject({
    state: 'running',
    updated_at: session.created_at,
    updated_by: 'coordinator',
  });
  for (const f of [p.updatesFromUser, p.children, p.projectStateReadme, p.finished])
    expect(fs.existsSync(f)).toBe(true);
  for (const d of [
    p.childRequestsDir,
    p.childrenDir,
    p.evalChecksDir,
    p.evalResultsDir,
    p.harnessOutputsDir,
    p.iterationsDir,
  ]) {
    expect(fs.statSync(d).isDirectory()).toBe(true);
  }
  fs.writeFileSync(p.control, '{"state":"stopped","reason":"user"}');
  fs.writeFileSync(p.updatesFromUser, 'please');
  createSessionDirectory({ sessionDir, goal: 'other', session, createdBy: 'coordinator' });
  expect(readJsonFile(p.control, controlFileSchema).state).toBe('stopped');
  expect(fs.readFileSync(p.updatesFromUser, 'utf8')).toBe('please');
  expect(fs.readFileSync(p.goal, 'utf8')).toBe('g\n');
  fs.rmSync(root, { recursive: true, force: true });
});
