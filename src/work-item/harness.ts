import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { TheLoopConfig } from '../config/schema';
import { writeFileAtomic } from '../session/atomic';
import { claudeConversationResumable } from '../harness/claude-transcript';
import { findExecutable } from '../harness/find-executable';
import { withFileLock } from './lock';
import type { WorkItemHarness } from './schemas';

const DEFAULT_EXECUTABLE: Record<WorkItemHarness, string> = { claude: 'claude', cursor: 'cursor-agent' };

export function harnessExecutable(config: TheLoopConfig, harness: WorkItemHarness): string {
  return config.harness[harness].command ?? DEFAULT_EXECUTABLE[harness];
}

/** The absolute path the executable resolves to, or null when it is not installed. */
export function resolveExecutable(command: string, env: NodeJS.ProcessEnv = process.env): string | null {
  return findExecutable(command, env);
}

/** The launch line without conversation flags: restart adds `--resume <id>` to exactly this. */
export function baseCommand(config: TheLoopConfig, harness: WorkItemHarness): string[] {
  const launch = config.harness[harness];
  const argv = [harnessExecutable(config, harness)];
  if (harness === 'claude' && launch.permissionMode) argv.push('--permission-mode', launch.permissionMode);
  argv.push(...launch.extraArgs);
  return argv;
}

export interface Conversation {
  id: string | null;
  /** Resume an existing conversation, or open a new one with this id. */
  resume: boolean;
}

export function conversationArgs(harness: WorkItemHarness, conversation: Conversation): string[] {
  if (conversation.id === null) return [];
  // An id rides in the same argument as its flag (`--resume=<id>`), so no id can ever be read as a flag of its own.
  if (conversation.resume)
    return harness === 'claude' ? [`--resume=${conversation.id}`] : ['--resume', conversation.id];
  // Claude Code takes the id of a new conversation up front; cursor-agent chooses its own.
  return harness === 'claude' ? [`--session-id=${conversation.id}`] : [];
}

export function newConversation(harness: WorkItemHarness): Conversation {
  return harness === 'claude' ? { id: randomUUID(), resume: false } : { id: null, resume: false };
}

/**
 * The conversation a registered id leads to in `cwd`. Claude resumes only a conversation whose transcript holds a
 * message in that directory (anything else is "No conversation found" and a dead pane), so an id it cannot resume
 * (opened by a start whose claude died before its first message, mistyped, or registered from another directory)
 * is replaced by a new conversation there. cursor-agent's chats are resumed as registered.
 */
export async function conversationFor(
  harness: WorkItemHarness,
  id: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<Conversation> {
  if (harness !== 'claude' || (await claudeConversationResumable(cwd, id, env))) return { id, resume: true };
  return newConversation(harness);
}

/** `env -u NAME … <harness>`: a kept-out name is not inherited from the tmux server either. */
export function withKeptOut(keptOut: readonly string[], argv: readonly string[]): string[] {
  const prefix = ['env'];
  for (const name of keptOut) prefix.push('-u', name);
  return [...prefix, ...argv];
}

/**
 * Claude Code asks whether to trust a folder the first time it runs there; a hosted session has nobody to
 * answer, so the checkout is marked trusted in Claude's own config ($CLAUDE_CONFIG_DIR/.claude.json or
 * ~/.claude.json). Best effort: a config we cannot parse is left alone.
 */
export async function trustFolderForClaude(
  folder: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | null> {
  const file = env.CLAUDE_CONFIG_DIR
    ? join(env.CLAUDE_CONFIG_DIR, '.claude.json')
    : join(homedir(), '.claude.json');
  try {
    return await withFileLock(file, () => {
      let config: Record<string, unknown> = {};
      if (existsSync(file)) {
        const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
        config = parsed as Record<string, unknown>;
      }
      const projects =
        typeof config.projects === 'object' && config.projects !== null
          ? (config.projects as Record<string, Record<string, unknown>>)
          : {};
      const current = projects[folder] ?? {};
      if (current.hasTrustDialogAccepted === true) return file;
      projects[folder] = { ...current, hasTrustDialogAccepted: true };
      writeFileAtomic(file, `${JSON.stringify({ ...config, projects }, null, 2)}\n`);
      return file;
    });
  } catch {
    return null;
  }
}
