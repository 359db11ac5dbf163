import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostContainment } from '../../../src/harness/cgroup';
import { sweepLeftoverRunCgroups } from '../../../src/harness/cgroup-sweep';

describe('sweepLeftoverRunCgroups', () => {
  it('removes the empty run cgroups older than ten minutes, and nothing populated or recent', async () => {
    const containment = hostContainment('self');
    if (containment.kind !== 'cgroup')
      throw new Error(
        `this test needs a writable cgroup v2 tree (${containment.reason}): run it as root on Linux ≥ 5.14`,
      );
    const name = (what: string) => join(containment.base, `sweep-test-${process.pid}-${what}`);
    const leftover = name('leftover');
    const recent = name('recent');
    const busy = name('busy');
    for (const dir of [leftover, recent, busy]) mkdirSync(dir);
    const hourAgo = new Date(Date.now() - 60 * 60_000);
    utimesSync(leftover, hourAgo, hourAgo);
    utimesSync(busy, hourAgo, hourAgo);
    const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      writeFileSync(join(busy, 'cgroup.procs'), String(sleeper.pid));
      await sweepLeftoverRunCgroups(containment);
      expect([leftover, recent, busy].map((dir) => existsSync(dir))).toEqual([false, true, true]);
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((resolve) => sleeper.once('exit', resolve));
      for (const dir of [leftover, recent, busy]) if (existsSync(dir)) rmdirSync(dir);
    }
  });
});
