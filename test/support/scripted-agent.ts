/**
 * The model behind the REAL claude CLI in goal loops, scripted turn by turn on the mock Anthropic API.
 *
 * Each `claude -p` a goal loop starts sends the iteration's prompt; `play` reads what the prompt says (goal, session
 * and iteration directories, iteration number, routine) and returns what the model does in that turn: files it
 * writes with the CLI's real Write tool (control.json, child requests, goal_check.json, anything else), a shell
 * command through the real Bash tool, the turn's cost (as token usage the CLI prices itself), and a promise that
 * holds the turn open. The mock turns that into the replies of one conversation: [Read the files that exist (Write
 * refuses a file it has not read), Write the new ones, Bash] → [Write the ones read] → the closing text.
 *
 * Tool steps report no tokens; the closing reply carries the whole cost, so a turn costs what the script says.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type {
  ContentBlock,
  MessagesBody,
  MessagesCall,
  MockAnthropic,
  MockReply,
  MockToolUse,
} from './mock-anthropic';

/**
 * What the CLI charges per token for the model it asks for by default (claude-opus-4-8: $5 per million input tokens,
 * $25 per million output tokens), so a scripted cost becomes usage the CLI prices back to the same dollars.
 */
export const INPUT_USD_PER_TOKEN = 5e-6;
export const OUTPUT_USD_PER_TOKEN = 25e-6;
/** Input tokens per reply stay below the long-context tier; the rest of a cost goes into output tokens. */
const MAX_INPUT_TOKENS = 100_000;

export interface GoalTurn {
  /** The iteration's whole prompt as the CLI sent it. */
  prompt: string;
  /** The rest is read from the built-in routines' prompt ('' and 0 when the prompt is a custom one). */
  goal: string;
  sessionId: string;
  iteration: number;
  routineId: string;
  sessionDir: string;
  iterationDir: string;
  controlFile: string;
  childRequestsDir: string;
}

export interface AgentPlay {
  /** The closing reply's text (default "done"). */
  text?: string;
  /** What the turn costs, in dollars the CLI reports (default 0). */
  costUsd?: number;
  /** Absolute paths and their contents (an object is written as JSON). */
  writeFiles?: Record<string, string | object>;
  control?: { state: 'running' | 'stopped'; reason?: string };
  /** Files written into the session's child_requests/, by name. */
  childRequests?: Record<string, unknown>;
  goalCheck?: { goal_met: boolean; reason: string };
  /** A command for the Bash tool (the HOME's settings must allow Bash: claudeEnv's allowedTools). */
  bash?: string;
  /** The turn's first model call is answered only once this settles: a turn that lasts until the test says so. */
  until?: () => Promise<unknown>;
  /** The model API fails the turn's first call with this status. */
  apiError?: { status: number; message?: string };
}

interface Plan {
  steps: MockToolUse[][];
  final: MockReply;
}

const TOOL_ID = /^toolu_([0-9a-f]{16})_(\d+)_\d+$/;

/** Installs `play` as the mock's answer to agent calls; returns every turn the loops played, in order. */
export function scriptGoalLoops(
  mock: MockAnthropic,
  play: (turn: GoalTurn) => AgentPlay | undefined | void,
): { turns: GoalTurn[] } {
  const plans = new Map<string, Plan>();
  const turns: GoalTurn[] = [];
  mock.setRespond(async (call: MessagesCall): Promise<MockReply> => {
    const next = continuing(call.body);
    if (next) {
      const plan = plans.get(next.planId);
      if (!plan) throw new Error(`no plan ${next.planId}`);
      return reply(next.planId, next.step, plan);
    }
    const turn = parseGoalTurn(latestPrompt(call.body));
    turns.push(turn);
    const scripted = play(turn) ?? {};
    if (scripted.until) await scripted.until();
    if (scripted.apiError) return { status: scripted.apiError.status, message: scripted.apiError.message };
    const planId = randomBytes(8).toString('hex');
    const plan = planTurn(turn, scripted);
    plans.set(planId, plan);
    return reply(planId, 0, plan);
  });
  return { turns };
}

function reply(planId: string, step: number, plan: Plan): MockReply {
  const uses = plan.steps[step];
  if (!uses) return plan.final;
  return {
    toolUses: uses.map((use, k) => ({ ...use, id: `toolu_${planId}_${step}_${k}` })),
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}

/**
 * The plan and step this call continues: its last user message holds the results of our previous step's tool uses.
 * (The CLI may append messages of its own after it, e.g. `role: system` "USD budget: $0/$1; $1 remaining".)
 */
function continuing(body: MessagesBody): { planId: string; step: number } | null {
  const last = [...(body.messages ?? [])].reverse().find((message) => message.role === 'user');
  if (!last || typeof last.content === 'string') return null;
  const result = last.content.find((block) => block.type === 'tool_result');
  const match = TOOL_ID.exec(result?.tool_use_id ?? '');
  if (!match) return null;
  return { planId: match[1] ?? '', step: Number(match[2]) + 1 };
}

function planTurn(turn: GoalTurn, play: AgentPlay): Plan {
  const files: Record<string, string> = {};
  const put = (file: string, content: unknown) => {
    files[file] = typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`;
  };
  for (const [file, content] of Object.entries(play.writeFiles ?? {})) put(file, content);
  if (play.control) put(turn.controlFile, play.control);
  for (const [name, request] of Object.entries(play.childRequests ?? {})) {
    put(join(turn.childRequestsDir, name), request);
  }
  if (play.goalCheck)
    put(join(turn.iterationDir, 'goal_check.json'), { schema_version: 1, ...play.goalCheck });

  const write = (file: string): MockToolUse => ({
    name: 'Write',
    input: { file_path: file, content: files[file] },
  });
  const existing = Object.keys(files).filter((file) => existsSync(file));
  const fresh = Object.keys(files).filter((file) => !existsSync(file));
  const first: MockToolUse[] = [
    ...existing.map((file) => ({ name: 'Read', input: { file_path: file } })),
    ...fresh.map(write),
  ];
  if (play.bash) {
    first.push({
      name: 'Bash',
      input: { command: play.bash, description: 'Run the scripted command', timeout: 600_000 },
    });
  }
  const steps = [first, existing.map(write)].filter((uses) => uses.length > 0);
  return { steps, final: { text: play.text ?? 'done', usage: usageFor(play.costUsd ?? 0) } };
}

/** Token usage the CLI prices at `usd`. */
export function usageFor(usd: number): { input_tokens: number; output_tokens: number } {
  const input = Math.min(MAX_INPUT_TOKENS, Math.round(usd / INPUT_USD_PER_TOKEN));
  const output = Math.max(0, Math.round((usd - input * INPUT_USD_PER_TOKEN) / OUTPUT_USD_PER_TOKEN));
  return { input_tokens: input, output_tokens: output };
}

/** The text of the conversation's newest prompt: its last user message that is not a tool result. */
function latestPrompt(body: MessagesBody): string {
  const messages = body.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!message || message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    const blocks: ContentBlock[] = message.content;
    if (blocks.some((block) => block.type === 'tool_result')) continue;
    return blocks.map((block) => block.text ?? '').join('\n');
  }
  return '';
}

export function parseGoalTurn(prompt: string): GoalTurn {
  const header = /session (\S+), iteration (\d+), routine "([^"]+)"/.exec(prompt);
  const goal = /## Goal\n\n([\s\S]*?)\n\nThe canonical copy of the goal is /.exec(prompt);
  const iterationDir = /This iteration's directory is (\S+?)\. Put logs/.exec(prompt)?.[1] ?? '';
  const sessionDir = iterationDir ? dirname(dirname(iterationDir)) : '';
  return {
    prompt,
    goal: goal?.[1]?.trim() ?? '',
    sessionId: header?.[1] ?? '',
    iteration: Number(header?.[2] ?? 0),
    routineId: header?.[3] ?? '',
    sessionDir,
    iterationDir,
    controlFile: sessionDir ? join(sessionDir, 'control.json') : '',
    childRequestsDir: sessionDir ? join(sessionDir, 'child_requests') : '',
  };
}

/** Per-session scripts: the first whose goalContains occurs in the turn's goal plays, by the session's iteration. */
export interface SessionScript {
  goalContains: string;
  /** By iteration number (1-based). */
  turns?: AgentPlay[];
  default?: AgentPlay;
}

export function bySession(scripts: SessionScript[]): (turn: GoalTurn) => AgentPlay | undefined {
  return (turn) => {
    const script = scripts.find((s) => turn.goal.includes(s.goalContains));
    return script ? (script.turns?.[turn.iteration - 1] ?? script.default) : undefined;
  };
}

/** A turn that lasts until the harness is killed. */
export const forever = (): Promise<never> => new Promise<never>(() => {});
export const after = (ms: number) => (): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** A turn that lasts until the test creates `file`: a test orders its steps by conditions, not by sleeps. */
export const untilFile = (file: string) => async (): Promise<void> => {
  while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 50));
};
