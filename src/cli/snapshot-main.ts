/**
 * The entry of the CLI's V8 start-up snapshot. scripts/build-snapshot.ts bundles this file with everything it
 * imports and has node build dist/snapshot/cli.blob from the bundle; the launcher (bin/the-loop.js) starts node from
 * that blob for `sessions list`. It serves that one command, parsed and failing exactly as main.ts does it, because
 * a snapshot cannot load a module from disk: everything else goes through main.ts.
 *
 * What makes it fast: the bundle's modules are evaluated when the blob is built, and the command has run once, over
 * a scratch registry. A run then starts with zod, yaml, commander and the command's code in the heap, compiled, and
 * zod's parsers generated: reading, compiling and first running them is most of what the command otherwise costs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startupSnapshot } from 'node:v8';
import { seedRegistry } from '../work-item/sample-registry';
import { declareCommand as declareSessionsList, run as runSessionsList } from './commands/sessions/list';
import { sessionsCommand } from './commands/sessions/shared';
import { invokedAs, rootProgram, runProgram } from './program';

async function runOnceOverScratchRegistry(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-snapshot-'));
  const quiet = { out: () => undefined, err: () => undefined };
  try {
    const { configFile } = seedRegistry(dir, 20);
    await runSessionsList({ config: configFile, format: 'table' }, quiet);
    await runSessionsList({ config: configFile, format: 'json', status: 'active' }, quiet);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

startupSnapshot.setDeserializeMainFunction(() => {
  const program = rootProgram(invokedAs(process.argv));
  declareSessionsList(sessionsCommand(program));
  void runProgram(program, process.argv).then((code) => {
    process.exitCode = code;
  });
});
// node takes the snapshot once this has settled (when the event loop is empty).
void runOnceOverScratchRegistry();
