import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enterHermeticEnvironment } from './hermetic-env';
import { compiledSupervisorPath } from './supervisors';

/** Unit tests' temporary directories land in one directory that goes with the run (unit-global-teardown.ts). */
export default function unitGlobalSetup(): void {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-unit-'));
  process.env.TMPDIR = dir;
  // Hook scripts, git and tmux in unit tests run in the run's own environment too (hermetic-env.ts).
  enterHermeticEnvironment(dir);
  // Turns start through the compiled supervisor, as on a machine with a C compiler; built once per machine.
  compiledSupervisorPath();
  (globalThis as { __THE_LOOP_UNIT_TMP__?: string }).__THE_LOOP_UNIT_TMP__ = dir;
}
