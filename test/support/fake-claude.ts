import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FAKE_CLAUDE = join(__dirname, 'bin', 'claude');

export interface FakeTurn {
  sleep_ms?: number;
  /** An absolute path: the turn does not end before this file exists (after sleep_ms, before write_files). */
  wait_for_file?: string;
  exit_code?: number;
  is_error?: boolean;
  result?: string;
  cost_usd?: number;
  usage?: Record<string, number>;
  write_files?: Record<string, string>;
  control?: { state: 'running' | 'stopped'; reason?: string };
  goal_check?: { goal_met: boolean; reason: string };
  child_requests?: Record<string, unknown>;
  ignore_sigterm?: boolean;
  spawn_grandchild_sleep_ms?: number;
  copy_prompt_to?: string;
  append_project_state?: Record<string, string>;
  /** Report at most --max-budget-usd as the turn's cost (the real CLI stops a turn at its budget). */
  respect_max_budget?: boolean;
}

/** Per-session script: the first entry whose goal_contains occurs in the session's goal.md applies. */
export interface FakeSessionScript {
  goal_contains: string;
  /** By the session's own turn number (1-based). */
  turns?: FakeTurn[];
  default?: FakeTurn;
}

/** Scripts the fake `claude` for one test: sets FAKE_CLAUDE_SCRIPT / FAKE_CLAUDE_STATE_DIR in this process. */
export function scriptFakeClaude(script: {
  turns?: FakeTurn[];
  default?: FakeTurn;
  sessions?: FakeSessionScript[];
}) {
  const dir = mkdtempSync(join(tmpdir(), 'fake-claude-'));
  const scriptFile = join(dir, 'script.json');
  writeFileSync(scriptFile, JSON.stringify(script));
  const stateDir = join(dir, 'state');
  process.env.FAKE_CLAUDE_SCRIPT = scriptFile;
  process.env.FAKE_CLAUDE_STATE_DIR = stateDir;
  return {
    dir,
    stateDir,
    env: { FAKE_CLAUDE_SCRIPT: scriptFile, FAKE_CLAUDE_STATE_DIR: stateDir },
    /** How many times the fake was started. */
    runs(): number {
      try {
        return readdirSync(stateDir).filter((name) => name.startsWith('run-')).length;
      } catch {
        return 0;
      }
    },
  };
}
