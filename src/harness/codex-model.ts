import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Where codex keeps its threads: $CODEX_HOME, else ~/.codex, as the harness's environment has them. */
export function codexHome(env: Record<string, string | undefined>): string {
  return env['CODEX_HOME'] ?? path.join(env['HOME'] ?? os.homedir(), '.codex');
}

const newestFirst = (dir: string): string[] => {
  try {
    return fs.readdirSync(dir).sort().reverse();
  } catch {
    return [];
  }
};

/**
 * The model a codex thread's last turn ran, from the thread's rollout (`<codex home>/sessions/YYYY/MM/DD/
 * rollout-…-<thread id>.jsonl`, whose `turn_context` lines name it): `codex exec --json` reports tokens but not the
 * model, and a price needs it. Null when the rollout or its model cannot be found.
 */
export function codexThreadModel(home: string, threadId: string): string | null {
  const sessions = path.join(home, 'sessions');
  const suffix = `-${threadId}.jsonl`;
  for (const year of newestFirst(sessions)) {
    for (const month of newestFirst(path.join(sessions, year))) {
      for (const day of newestFirst(path.join(sessions, year, month))) {
        const dir = path.join(sessions, year, month, day);
        const file = newestFirst(dir).find((name) => name.endsWith(suffix));
        if (file) return lastModel(path.join(dir, file));
      }
    }
  }
  return null;
}

function lastModel(file: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  let model: string | null = null;
  for (const line of text.split('\n')) {
    if (!line.includes('"turn_context"')) continue;
    try {
      const entry = JSON.parse(line) as { type?: unknown; payload?: { model?: unknown } };
      if (entry.type === 'turn_context' && typeof entry.payload?.model === 'string')
        model = entry.payload.model;
    } catch {
      // a torn line
    }
  }
  return model;
}
