import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { HarnessRunRequest } from '../../../src/harness';
import { iterationPaths, sessionPaths } from '../../../src/session/paths';

export interface Fixture {
  root: string;
  request(overrides?: Partial<HarnessRunRequest>): HarnessRunRequest;
  cleanup(): void;
}

/** A session directory inside a scratch working directory, and a request for iteration 1 of routine worker. */
export function makeFixture(): Fixture {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'harness-'));
  const cwd = path.join(root, 'work');
  const sessionDir = path.join(root, 'work', '.loopy_loop', 'sessions', 's1');
  fs.mkdirSync(cwd, { recursive: true });
  const session = sessionPaths(sessionDir);
  const it = iterationPaths(sessionDir, 1, 'worker');
  fs.mkdirSync(it.dir, { recursive: true });
  fs.writeFileSync(session.goal, 'the goal\n');
  fs.writeFileSync(it.prompt, 'do the thing');
  return {
    root,
    request: (overrides = {}) => ({
      prompt: 'do the thing',
      promptFile: it.prompt,
      cwd,
      sessionDir,
      iterationDir: it.dir,
      goalFile: session.goal,
      controlFile: session.control,
      outputDir: path.join(it.harnessOutputRoot, 'run-1'),
      runId: 'run-1',
      iteration: 1,
      routineId: 'worker',
      timeoutMs: 20000,
      killGraceMs: 500,
      options: {},
      ...overrides,
    }),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
