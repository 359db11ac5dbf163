import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../session/atomic';
import { sessionPaths } from '../session/paths';
import { readText } from './session-files';

/**
 * After an iteration that was handed the user's updates: record them in project_state/user_requests.md, and only
 * then remove exactly that text from updates_from_user.md (anything appended meanwhile stays for the next turn).
 * An agent that already reflected and emptied the file leaves nothing to do.
 */
export function reflectUserUpdates(
  sessionDir: string,
  consumed: string,
  iterationDirName: string,
  at: string,
): boolean {
  const paths = sessionPaths(sessionDir);
  const current = readText(paths.updatesFromUser);
  if (!consumed.trim() || !current.startsWith(consumed)) return false;
  mkdirSync(paths.projectStateDir, { recursive: true });
  const ledger = join(paths.projectStateDir, 'user_requests.md');
  const entry = `\n## ${at} — reflected after iterations/${iterationDirName}\n\n${consumed.trim()}\n`;
  appendFileSync(ledger, entry);
  writeFileAtomic(paths.updatesFromUser, current.slice(consumed.length).replace(/^\n+/, ''));
  return true;
}
