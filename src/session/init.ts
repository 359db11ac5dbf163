import * as fs from 'node:fs';

import { writeFileAtomic, writeJsonAtomic } from './atomic';
import { sessionPaths, type SessionPaths } from './paths';
import { PROJECT_STATE_README } from './project-state';
import { childrenFileSchema, controlFileSchema, sessionFileSchema, type SessionFile } from './schemas';

export interface InitSessionInput {
  sessionDir: string;
  goal: string;
  session: SessionFile;
  now?: Date;
}

/**
 * Creates the session directory of the layout doc. Idempotent: a file that already exists is left alone,
 * so a retried activity (or a restart) never resets control.json, the user's inbox or project_state.
 */
export function initSessionDirectory(input: InitSessionInput): SessionPaths {
  const p = sessionPaths(input.sessionDir);
  const at = (input.now ?? new Date()).toISOString();
  for (const dir of [
    p.dir,
    p.childRequestsDir,
    p.childrenDir,
    p.projectStateDir,
    p.evalChecksDir,
    p.evalResultsDir,
  ]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  fs.mkdirSync(p.harnessOutputsDir, { recursive: true });
  fs.mkdirSync(p.iterationsDir, { recursive: true });
  const missing = (file: string): boolean => !fs.existsSync(file);
  if (missing(p.goal)) writeFileAtomic(p.goal, input.goal.endsWith('\n') ? input.goal : `${input.goal}\n`);
  if (missing(p.session)) writeJsonAtomic(p.session, sessionFileSchema, input.session);
  if (missing(p.control)) {
    writeJsonAtomic(p.control, controlFileSchema, {
      state: 'running',
      reason: null,
      updated_at: at,
      updated_by: 'loop',
    });
  }
  if (missing(p.updatesFromUser)) writeFileAtomic(p.updatesFromUser, '');
  if (missing(p.children))
    writeJsonAtomic(p.children, childrenFileSchema, { schema_version: 1, children: [] });
  if (missing(p.projectStateReadme)) writeFileAtomic(p.projectStateReadme, PROJECT_STATE_README);
  if (missing(p.finished))
    writeFileAtomic(p.finished, '# Finished\n\nAppend-only. Verified, accepted completions.\n');
  return p;
}
