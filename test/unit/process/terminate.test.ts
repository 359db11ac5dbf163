import { execa } from 'execa';
import { isRunning, terminate } from '../../../src/process/terminate';

/** A real shell in its own process group; `trap` decides whether SIGTERM ends it. */
async function shell(script: string) {
  const child = execa('/bin/sh', ['-c', script], { detached: true, reject: false, stdin: 'ignore' });
  // the script prints "ready" once its traps are set
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const pid = child.pid ?? 0;
  return { pid, exited: child };
}

describe('terminate', () => {
  it('a process that honours SIGTERM ends with SIGTERM', async () => {
    const { pid, exited } = await shell('echo ready; while :; do sleep 0.1; done');
    const result = await terminate({ pid }, { graceMs: 30_000 });
    expect(result).toEqual({ action: 'sigterm', settled: true, denied: [] });
    expect((await exited).signal).toBe('SIGTERM');
  });

  it('a process group that ignores SIGTERM gets SIGKILL after the grace period', async () => {
    const { pid, exited } = await shell("trap '' TERM HUP; echo ready; while :; do sleep 0.1; done");
    // A generous wait for the killed group to vanish: the default 2 s ran out once on a loaded CI machine.
    const result = await terminate(
      { group: pid },
      { graceMs: 200, politeSignals: ['SIGHUP', 'SIGTERM'], killWaitMs: 30_000 },
    );
    expect(result).toEqual({ action: 'sigkill', settled: true, denied: [] });
    expect((await exited).signal).toBe('SIGKILL');
    expect(isRunning({ group: pid })).toBe(false);
  });

  it('a target that is already gone is left alone', async () => {
    const { pid, exited } = await shell('echo ready');
    await exited;
    expect(await terminate({ pid }, { graceMs: 10 })).toEqual({ action: 'none', settled: true, denied: [] });
  });

  it('reports signals the kernel refused, and an unsettled target', async () => {
    const result = await terminate(
      { pid: 424242 },
      { graceMs: 10, killWaitMs: 10, isRunning: () => true, send: () => 'denied' },
    );
    expect(result).toEqual({ action: 'none', settled: false, denied: ['SIGTERM', 'SIGKILL'] });
  });

  it('refuses process group 1 and below', async () => {
    await expect(terminate({ group: 1 }, { graceMs: 10 })).rejects.toThrow('refusing to signal');
  });
});
