// Shared by the plugin's hooks. Node built-ins only, so a hook starts in milliseconds. A hook never blocks or
// breaks the agent: every failure is logged to a file and the hook still exits 0.
import { appendFileSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Set in a hosted pane by the worker that hosts it (see src/hook-channel/protocol.ts). */
export const SOCKET_ENV = 'THE_LOOP_HOOK_SOCKET';
export const TOKEN_FILE_ENV = 'THE_LOOP_HOOK_TOKEN_FILE';
export const LOG_ENV = 'THE_LOOP_HOOK_LOG';
export const WORK_ITEM_ENV = 'THE_LOOP_WORK_ITEM';
export const SPOOL_ENV = 'THE_LOOP_HOOK_SPOOL';
export const REPORT_PATH = '/v1/report';
/** A report the worker does not answer within this is given up on (and logged). */
export const REPORT_TIMEOUT_MS = 3000;

export function logFile(env = process.env) {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return env[LOG_ENV] || join(tmpdir(), `the-loop-hooks-${uid}.log`);
}

export function log(message, env = process.env) {
  try {
    appendFileSync(logFile(env), `${new Date().toISOString()} [${process.pid}] ${message}\n`, {
      mode: 0o600,
    });
  } catch {
    // Nowhere left to say it; the agent must not notice.
  }
}

/** The hook's input: one JSON object on stdin. An unreadable input is an empty object. */
export async function readInput(stream = process.stdin) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    const parsed = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch (error) {
    log(`unreadable hook input: ${error.message}`);
    return {};
  }
}

const str = (value) => (typeof value === 'string' ? value : null);
const nonEmpty = (text) => (text !== null && text.trim() !== '' ? text : null);

/** The text of the last assistant message in a Claude Code transcript (JSONL), or null. */
export function lastAssistantMessage(transcriptPath) {
  if (!transcriptPath) return null;
  let lines;
  try {
    lines = readFileSync(transcriptPath, 'utf8').split('\n');
  } catch (error) {
    log(`cannot read the transcript ${transcriptPath}: ${error.message}`);
    return null;
  }
  const entries = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      // A torn last line while Claude Code is still writing: skip it.
    }
  }
  // Claude Code writes one line per content block of a message; the blocks of one message share its id.
  let messageId;
  const texts = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry?.type !== 'assistant' || !entry.message) continue;
    const id = entry.message.id ?? null;
    const blocks = Array.isArray(entry.message.content) ? entry.message.content : [];
    const text = blocks
      .filter((b) => b?.type === 'text' && typeof b.text === 'string')
      .map((b) => b.text)
      .join('');
    if (messageId === undefined) {
      if (text === '') continue;
      messageId = id;
    } else if (id !== messageId || id === null) break;
    if (text !== '') texts.unshift(text);
  }
  return texts.length > 0 ? texts.join('\n') : null;
}

/** What a tool call asks to do, in one line: its command, its file, or its input as JSON. */
export function toolSummary(toolInput) {
  if (toolInput === null || typeof toolInput !== 'object') return '';
  const first = ['command', 'file_path', 'path', 'url', 'pattern']
    .map((k) => toolInput[k])
    .find((v) => typeof v === 'string');
  const text = first ?? JSON.stringify(toolInput);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** True when the tool call may have published a branch or opened a pull request. */
export function opensPullRequest(input) {
  const tool = typeof input.tool_name === 'string' ? input.tool_name : '';
  if (/^mcp__.+create_pull_request$/.test(tool)) return true;
  if (tool !== 'Bash') return false;
  const command = typeof input.tool_input?.command === 'string' ? input.tool_input.command : '';
  return (
    /(^|[\s;&|(])git(\s+-\S+(\s+[^-\s]\S*)?)*\s+push\b/.test(command) || /\bgh\s+pr\s+create\b/.test(command)
  );
}

/** Claude Code's hook input → the report the worker reads (schema: src/hook-channel/report.ts). */
export function reportFor(input, now = new Date()) {
  const base = {
    schema_version: 1,
    harness: 'claude',
    harness_session_id: str(input.session_id),
    cwd: str(input.cwd),
    at: now.toISOString(),
  };
  switch (input.hook_event_name) {
    case 'SessionStart':
      return { ...base, event: 'ready', source: str(input.source) };
    case 'UserPromptSubmit':
      // the transcript: a turn a person interrupts (Esc) ends with no Stop hook, only a marker written there
      return {
        ...base,
        event: 'turn-started',
        prompt: str(input.prompt) ?? '',
        transcript_path: str(input.transcript_path),
      };
    case 'Stop': {
      // Claude Code's own copy of the reply first: its transcript file is written behind it, and under load a Stop
      // hook read it before the turn's reply was there (and reported the previous turn's). The transcript serves a
      // version that sends none, and a last message that is only a tool call.
      return {
        ...base,
        event: 'turn-ended',
        last_assistant_message:
          nonEmpty(str(input.last_assistant_message)) ?? lastAssistantMessage(str(input.transcript_path)),
        transcript_path: str(input.transcript_path),
      };
    }
    case 'PermissionRequest':
      return {
        ...base,
        event: 'permission',
        tool_name: str(input.tool_name) ?? 'a tool',
        summary: toolSummary(input.tool_input),
      };
    case 'Notification': {
      const type = str(input.notification_type);
      const message = str(input.message) ?? '';
      const reason =
        type === 'permission_prompt' || /permission/i.test(message)
          ? 'permission'
          : type === 'idle_prompt' || /waiting for your input/i.test(message)
            ? 'idle'
            : 'other';
      return { ...base, event: 'waiting', reason, notification_type: type, message };
    }
    default:
      return null;
  }
}

/**
 * While its worker restarts, the socket is gone (ENOENT) or refuses (ECONNREFUSED): a report keeps trying this
 * long, within the hook's own 10 s, so that a turn ending during a restart still reaches the new worker.
 */
export const REPORT_RETRY_MS = 8000;
// ECONNRESET, EPIPE: the worker died while it handled the report (a kill -9 mid-request): it kept nothing of it,
// since it writes what a report changed before it answers, so the report goes to the next worker.
const WORKER_AWAY = new Set(['ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

/**
 * POSTs a report over the worker's Unix socket with the session's token. Resolves to the HTTP status, or to an
 * error message; never rejects; gives up on one attempt after `timeoutMs`, and on a worker that is away after
 * `retryMs`.
 */
export async function sendReport(
  report,
  env = process.env,
  timeoutMs = REPORT_TIMEOUT_MS,
  retryMs = REPORT_RETRY_MS,
) {
  const socketPath = env[SOCKET_ENV];
  const tokenFile = env[TOKEN_FILE_ENV];
  if (!socketPath || !tokenFile) return { skipped: true };
  let token;
  try {
    token = readFileSync(tokenFile, 'utf8').trim();
  } catch (error) {
    return { error: `cannot read the token file: ${error.message}` };
  }
  const body = JSON.stringify(report);
  const deadline = Date.now() + retryMs;
  for (;;) {
    const result = await postReport(socketPath, token, body, timeoutMs);
    if (!result.away) return result;
    if (Date.now() >= deadline) return spool(body, env) ? { spooled: true } : { error: result.error };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * How long a permission prompt is held for an answer from elsewhere (the CLI, GitHub, Slack): as long as the hook
 * may run (hooks.json gives it a week). Meanwhile the prompt in the terminal answers it too; the first answer wins.
 */
export const PERMISSION_HOLD_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Asks the worker for the answer to a permission prompt and waits for it: the worker holds the request until a person
 * answers from elsewhere, or answers "no decision" when the prompt was answered in the terminal. A worker that goes
 * away (a restart) is asked again. Resolves to {decision: 'allow' | 'deny', message} or null; never rejects.
 */
export async function askPermission(report, env = process.env, holdMs = PERMISSION_HOLD_MS) {
  const socketPath = env[SOCKET_ENV];
  const tokenFile = env[TOKEN_FILE_ENV];
  if (!socketPath || !tokenFile) return null;
  const deadline = Date.now() + holdMs;
  const body = JSON.stringify(report);
  while (Date.now() < deadline) {
    let token;
    try {
      token = readFileSync(tokenFile, 'utf8').trim();
    } catch (error) {
      log(`permission: cannot read the token file: ${error.message}`, env);
      return null;
    }
    const result = await postReport(socketPath, token, body, deadline - Date.now());
    if (result.status === 200) {
      try {
        const answer = JSON.parse(result.body ?? '');
        return answer?.decision === 'allow' || answer?.decision === 'deny' ? answer : null;
      } catch {
        return null;
      }
    }
    if (result.status !== undefined && result.status !== 503) {
      log(`permission: the worker answered ${result.status} ${result.body ?? ''}`.trim(), env);
      return null;
    }
    // away, restarting (503) or the connection dropped: ask the worker that comes back
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return null;
}

/**
 * A worker away longer than the retry window (stopped, or slow to come back) reads the session's spool when it
 * starts: the report is kept there, one JSON a line, instead of being lost. False when there is no spool to use.
 */
function spool(body, env) {
  const file = env[SPOOL_ENV];
  if (!file) return false;
  try {
    appendFileSync(file, `${body}\n`, { mode: 0o600 });
    return true;
  } catch (error) {
    log(`cannot spool a report to ${file}: ${error.message}`, env);
    return false;
  }
}

function postReport(socketPath, token, body, timeoutMs) {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = request(
      {
        socketPath,
        path: REPORT_PATH,
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => done({ error: error.message }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ error: `no answer from the worker within ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (error) => done({ error: error.message, away: WORKER_AWAY.has(error.code) }));
    req.end(body);
  });
}
