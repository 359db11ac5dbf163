import { rmSync } from 'node:fs';
import { terminate } from '../../src/process/terminate';

export default async function globalTeardown(): Promise<void> {
  const info = (globalThis as { __THE_LOOP_TEST_SERVER__?: { pid: number; dir: string } })
    .__THE_LOOP_TEST_SERVER__;
  if (!info) return;
  await terminate({ pid: info.pid }, { graceMs: 10_000, killWaitMs: 60_000 });
  rmSync(info.dir, { recursive: true, force: true });
}
