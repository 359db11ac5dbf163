import { rmSync } from 'node:fs';

export default function unitGlobalTeardown(): void {
  const dir = (globalThis as { __THE_LOOP_UNIT_TMP__?: string }).__THE_LOOP_UNIT_TMP__;
  if (dir) rmSync(dir, { recursive: true, force: true });
}
