import { rmSync } from 'node:fs';
import { stopProcess } from '../../src/service/dev-server';

export default async function globalTeardown(): Promise<void> {
  const info = (globalThis as { __THE_LOOP_TEST_SERVER__?: { pid: number; dir: string } })
    .__THE_LOOP_TEST_SERVER__;
  if (!info) return;
  await stopProcess(info.pid, 10_000);
  rmSync(info.dir, { recursive: true, force: true });
}
