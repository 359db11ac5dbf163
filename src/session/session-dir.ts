import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

import { writeFileAtomic } from './atomic';
import { writeJsonAtomic } from './json-file';
import { sessionPaths, type SessionPaths } from './paths';
import { PROJECT_STATE_README } from './project-state';
import { childrenFileSchema, controlFileSchema, sessionFileSchema, type SessionFile } from './schemas';

export interface NewSessionDirectory {
  sessionDir: string;
  goal: string;
  session: SessionFile;
  /** control.json's `updated_by` for the initial `running` state: who created the session. */
  createdBy: string;
}

function writeIfMissing(file: string, write: () => void): void {
  if (!existsSync(file)) write();
}

/**
 * Creates the layout doc's session directory, for goal and work-item sessions alike. Safe to repeat: a file that
 * already exists is left alone, so a retried activity (or a restart) never resets control.json, the user's inbox
 * or project_state.
 */
export function createSessionDirectory(input: NewSessionDirectory): SessionPaths {
  const paths = sessionPaths(input.sessionDir);
  for (const dir of [
    paths.dir,
    paths.childRequestsDir,
    paths.childrenDir,
    paths.projectStateDir,
    paths.evalChecksDir,
    paths.evalResultsDir,
    paths.harnessOutputsDir,
    paths.iterationsDir,
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  // The session state is no part of the user's project: an agent's `git add -A` must not commit it.
  const loopDir = dirname(dirname(paths.dir));
  if (basename(loopDir) === '.loopy_loop') {
    const gitignore = join(loopDir, '.gitignore');
    writeIfMissing(gitignore, () => writeFileAtomic(gitignore, '*\n'));
  }
  writeIfMissing(paths.goal, () =>
    writeFileAtomic(paths.goal, input.goal.endsWith('\n') ? input.goal : `${input.goal}\n`),
  );
  writeIfMissing(paths.session, () => writeJsonAtomic(paths.session, sessionFileSchema, input.session));
  writeIfMissing(paths.control, () =>
    writeJsonAtomic(paths.control, controlFileSchema, {
      state: 'running',
      reason: null,
      updated_at: input.session.created_at,
      updated_by: input.createdBy,
    }),
  );
  writeIfMissing(paths.updatesFromUser, () => writeFileAtomic(paths.updatesFromUser, ''));
  writeIfMissing(paths.children, () =>
    writeJsonAtomic(paths.children, childrenFileSchema, { schema_version: 1, children: [] }),
  );
  writeIfMissing(paths.projectStateReadme, () =>
    writeFileAtomic(paths.projectStateReadme, PROJECT_STATE_README),
  );
  writeIfMissing(paths.finished, () =>
    writeFileAtomic(paths.finished, '# finished\n\nAppend-only ledger of outer-verified completed work.\n'),
  );
  return paths;
}
