/**
 * The entry of the CLI's V8 start-up snapshot for the commands a script or a person runs most often: `sessions list`,
 * `list` and `status` (`loopy list`, `loopy status`) and `inbox`. scripts/build-snapshot.ts bundles this file with
 * everything it imports and has node build dist/snapshot/cli.blob from the bundle; the launcher (bin/the-loop.js)
 * starts node from that blob for these commands. It serves them alone, parsed and failing exactly as main.ts does
 * it, because a snapshot cannot load a module from disk: everything else goes through main.ts.
 *
 * What makes it fast: the bundle's modules are evaluated when the blob is built, and each file-only command has run
 * once, over scratch records. A run then starts with zod, yaml, commander and the commands' code in the heap,
 * compiled, and zod's parsers generated: reading, compiling and first running them is most of what a command
 * otherwise costs. The bundle holds no Temporal client: a running session's status comes from the local worker's
 * socket; a run that needs the client hands over to the script (snapshot-hand-over.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startupSnapshot } from 'node:v8';
import { seedRegistry } from '../work-item/sample-registry';
import { declareCommand as declareInbox, run as runInbox } from './commands/inbox/run';
import { declareCommand as declareList, run as runList } from './commands/loopy/list';
import { run as runGoalSessionStatus } from './commands/loopy/status';
import { declareStatusCommand } from './commands/service/status-command';
import { declareCommand as declareSessionsList, run as runSessionsList } from './commands/sessions/list';
import { sessionsCommand } from './commands/sessions/shared';
import { HAND_OVER_EXIT, HandOverToScript } from './snapshot-hand-over';
import { invokedAs, rootProgram, runProgram } from './program';

async function runOnceOverScratchRecords(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-snapshot-'));
  const quiet = { out: () => undefined, err: () => undefined };
  try {
    const { configFile } = seedRegistry(dir, 20);
    const cwd = join(dir, 'work');
    mkdirSync(cwd);
    await runSessionsList({ config: configFile, format: 'table' }, quiet);
    await runSessionsList({ config: configFile, format: 'json', status: 'active' }, quiet);
    await runList({ config: configFile, format: 'table' }, quiet, cwd);
    await runInbox({ config: configFile, format: 'table' }, quiet, cwd);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

startupSnapshot.setDeserializeMainFunction(() => {
  const program = rootProgram(invokedAs(process.argv));
  declareSessionsList(sessionsCommand(program));
  declareList(program);
  declareInbox(program);
  // The launcher starts this blob for `status` only as loopy: always a goal session's status.
  declareStatusCommand(program, (session, _loopy, options, io) =>
    runGoalSessionStatus(session, options, io).catch((error: unknown) => {
      if (error instanceof HandOverToScript) return HAND_OVER_EXIT;
      throw error;
    }),
  );
  void runProgram(program, process.argv).then((code) => {
    process.exitCode = code;
  });
});
// node takes the snapshot once this has settled (when the event loop is empty).
void runOnceOverScratchRecords();
