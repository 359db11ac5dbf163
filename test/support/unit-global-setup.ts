import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Unit tests' temporary directories land in one directory that goes with the run (unit-global-teardown.ts). */
export default function unitGlobalSetup(): void {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-unit-'));
  process.env.TMPDIR = dir;
  (globalThis as { __THE_LOOP_UNIT_TMP__?: string }).__THE_LOOP_UNIT_TMP__ = dir;
}
