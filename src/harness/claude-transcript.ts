import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where claude keeps a conversation's transcript: `<config dir>/projects/<cwd, every non-alphanumeric character
 * as '-'>/<id>.jsonl`, the config dir being CLAUDE_CONFIG_DIR or ~/.claude (as seen with 2.1.197).
 */
export function claudeTranscriptFile(cwd: string, id: string, env: NodeJS.ProcessEnv): string {
  const configDir = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
  return join(configDir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), `${id}.jsonl`);
}

/**
 * `claude --resume <id>` works only for a conversation that has a message and was created in the same cwd; any other
 * id prints "No conversation found" and exits 1 with no JSON (a turn that died before its first message leaves such
 * an id behind). So a resume is attempted only when the transcript holds a user or assistant message.
 */
export async function claudeConversationResumable(
  cwd: string,
  id: string,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(claudeTranscriptFile(cwd, id, env), 'utf8');
  } catch {
    return false;
  }
  return text.split('\n').some((line) => /"type":"(user|assistant)"/.test(line));
}
