import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TokenCounts } from '../pricing/prices';

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
 * What a codex thread's rollout says: the model of its last turn, its tokens so far (the ledger's kinds), and of its
 * last turn the tool calls made and those its sandbox refused.
 */
export interface CodexRollout {
  model: string | null;
  total: TokenCounts | null;
  lastTurn: { toolCalls: number; refused: { tool: string; input: string }[] };
}

/**
 * A codex thread's rollout (`<codex home>/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl`, one file per thread,
 * appended to on resume): its `turn_context` lines name the model, and its `token_count` lines the thread's tokens
 * after each response codex was served — a failed turn's served responses included, which `codex exec --json`
 * does not report. Null when no rollout of the thread is found.
 */
export function codexRollout(home: string, threadId: string): CodexRollout | null {
  const sessions = path.join(home, 'sessions');
  const suffix = `-${threadId}.jsonl`;
  for (const year of newestFirst(sessions)) {
    for (const month of newestFirst(path.join(sessions, year))) {
      for (const day of newestFirst(path.join(sessions, year, month))) {
        const dir = path.join(sessions, year, month, day);
        const file = newestFirst(dir).find((name) => name.endsWith(suffix));
        if (file) return readRollout(path.join(dir, file));
      }
    }
  }
  return null;
}

type RolloutLine = {
  type?: unknown;
  payload?: {
    type?: unknown;
    model?: unknown;
    info?: { total_token_usage?: Record<string, unknown> } | null;
    name?: unknown;
    arguments?: unknown;
    call_id?: unknown;
    output?: unknown;
  };
};

/**
 * How a command the sandbox kept from writing fails (codex 0.171 on Linux: the filesystem outside the workspace is
 * mounted read-only, and what the sandbox forbids is EPERM); a failure for any other reason is the command's own.
 */
const SANDBOX_REFUSAL = /Read-only file system|Operation not permitted/;
const failedExit = /Process exited with code [1-9]/;

/** The command a tool call ran, in one line, from its JSON arguments. */
function toolInput(args: unknown): string {
  try {
    const parsed = JSON.parse(typeof args === 'string' ? args : '{}') as Record<string, unknown>;
    const command = parsed['cmd'] ?? parsed['command'];
    const text = Array.isArray(command) ? command.join(' ') : typeof command === 'string' ? command : '';
    return text.replace(/\s+/g, ' ').slice(0, 200);
  } catch {
    return '';
  }
}

const count = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;

/**
 * codex's token counts in the ledger's kinds: its input_tokens include the cached ones, which the ledger keeps apart
 * (as claude reports them).
 */
export function codexTokens(usage: Record<string, unknown>): TokenCounts {
  const cached = count(usage['cached_input_tokens']);
  return {
    input_tokens: Math.max(0, count(usage['input_tokens']) - cached),
    output_tokens: count(usage['output_tokens']),
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: count(usage['cache_write_input_tokens']),
  };
}

function readRollout(file: string): CodexRollout | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const rollout: CodexRollout = { model: null, total: null, lastTurn: { toolCalls: 0, refused: [] } };
  const calls = new Map<string, { tool: string; input: string }>();
  const kinds = [
    '"turn_context"',
    '"token_count"',
    '"task_started"',
    '"function_call"',
    '"function_call_output"',
  ];
  for (const line of text.split('\n')) {
    if (!kinds.some((kind) => line.includes(kind))) continue;
    let entry: RolloutLine;
    try {
      entry = JSON.parse(line) as RolloutLine;
    } catch {
      continue; // a torn line
    }
    const payload = entry.payload;
    if (entry.type === 'turn_context' && typeof payload?.model === 'string') rollout.model = payload.model;
    const total = payload?.type === 'token_count' ? payload.info?.total_token_usage : undefined;
    if (total) rollout.total = codexTokens(total);
    if (payload?.type === 'task_started') {
      rollout.lastTurn = { toolCalls: 0, refused: [] };
      calls.clear();
    }
    if (payload?.type === 'function_call' && typeof payload.call_id === 'string') {
      rollout.lastTurn.toolCalls += 1;
      calls.set(payload.call_id, {
        tool: String(payload.name ?? 'tool'),
        input: toolInput(payload.arguments),
      });
    }
    const output = payload?.type === 'function_call_output' ? payload.output : undefined;
    const call = typeof payload?.call_id === 'string' ? calls.get(payload.call_id) : undefined;
    if (typeof output === 'string' && call && failedExit.test(output) && SANDBOX_REFUSAL.test(output)) {
      rollout.lastTurn.refused.push(call);
    }
  }
  return rollout;
}
