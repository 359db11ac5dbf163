import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { HarnessRunRequest } from '../../../src/harness';
import { iterationPaths, sessionPaths } from '../../../src/session/paths';

export const FAKE_CLAUDE = path.resolve(__dirname, '../../support/bin/claude');

export interface Fixture {
  root: string;
  stateDir: string;
  scriptFile: string;
  request(overrides?: Partial<HarnessRunRequest>): HarnessRunRequest;
  script(turns: unknown[], fallback?: unknown): void;
  runs(): { n: number; pid: number; args: string[]; prompt_sha256: string; iteration_dir: string }[];
  cleanup(): void;
}

export function makeFixture(): Fixture {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'harness-'));
  const cwd = path.join(root, 'work');
  const sessionDir = path.join(root, 'work', '.loopy_loop', 'sessions', 's1');
  const stateDir = path.join(root, 'fake-state');
  const scriptFile = path.join(root, 'script.json');
  fs.mkdirSync(cwd, { recursive: true });
  const session = sessionPaths(sessionDir);
  const it = iterationPaths(sessionDir, 1, 'worker');
  fs.mkdirSync(it.dir, { recursive: true });
  fs.writeFileSync(session.goal, 'the goal\n');
  fs.writeFileSync(it.prompt, 'do the thing');
  return {
    root,
    stateDir,
    scriptFile,
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
      env: { FAKE_CLAUDE_SCRIPT: scriptFile, FAKE_CLAUDE_STATE_DIR: stateDir },
      options: { command: FAKE_CLAUDE },
      ...overrides,
    }),
    script: (turns, fallback) => fs.writeFileSync(scriptFile, JSON.stringify({ turns, default: fallback })),
    runs: () =>
      fs
        .readFileSync(path.join(stateDir, 'runs.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as ReturnType<Fixture['runs']>[number]),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
