import * as path from 'node:path';

import {
  harnessRunDir,
  iterationDirName,
  iterationPaths,
  sessionPaths,
  sessionsRoot,
} from '../../../src/session/paths';

test('sessionsRoot and sessionPaths follow the layout doc', () => {
  expect(sessionsRoot('/w')).toBe('/w/.loopy_loop/sessions');
  const p = sessionPaths('/w/.loopy_loop/sessions/s1');
  expect(path.relative(p.dir, p.goal)).toBe('goal.md');
  expect(path.relative(p.dir, p.events)).toBe('events.jsonl');
  expect(path.relative(p.dir, p.updatesFromUser)).toBe('updates_from_user.md');
  expect(path.relative(p.dir, p.finished)).toBe('project_state/finished.md');
  expect(path.relative(p.dir, p.childRequestsDir)).toBe('child_requests');
  expect(path.relative(p.dir, p.harnessOutputsDir)).toBe('harness_outputs');
});

test('iteration directory names pad to four digits and grow past 9999', () => {
  expect(iterationDirName(1, 'planner')).toBe('0001_planner');
  expect(iterationDirName(9999, 'w')).toBe('9999_w');
  expect(iterationDirName(12345, 'w')).toBe('12345_w');
  expect(() => iterationDirName(0, 'w')).toThrow();
});

test('iterationPaths and harnessRunDir', () => {
  const it = iterationPaths('/s', 2, 'goal_check');
  expect(it.dir).toBe('/s/iterations/0002_goal_check');
  expect(it.goalCheck).toBe('/s/iterations/0002_goal_check/goal_check.json');
  expect(it.pendingFinishedRequest).toBe('/s/iterations/0002_goal_check/pending_finished_request.json');
  expect(it.harnessOutputRoot).toBe('/s/harness_outputs/0002_goal_check');
  expect(harnessRunDir('/s', 1, 'planner', 'run-123')).toBe('/s/harness_outputs/0001_planner/run-123');
  expect(() => harnessRunDir('/s', 1, 'planner', '../x')).toThrow(/safe/);
});
