import { consecutiveRestarts, restartDelayMs, RESTART_POLICY } from '../../../src/service/restart-backoff';
import { observePart, restartDue, restarted, restartFailed } from '../../../src/service/supervised-part';
import { supervisionLines } from '../../../src/cli/supervision-lines';

const T0 = Date.parse('2026-12-05T09:00:00.000Z');
const worker = { pid: 100, command: 'worker' };

describe('restart backoff', () => {
  it('doubles from 1 s per restart in a row, up to a minute', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 50].map((n) => restartDelayMs(n))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('counts a restart in a row unless the part ran healthyAfterMs since the last one', () => {
    const lastRestartAt = new Date(T0).toISOString();
    expect(consecutiveRestarts({ consecutive: 3, lastRestartAt: null }, T0)).toBe(0);
    expect(consecutiveRestarts({ consecutive: 3, lastRestartAt }, T0 + 10_000)).toBe(4);
    expect(consecutiveRestarts({ consecutive: 3, lastRestartAt }, T0 + RESTART_POLICY.healthyAfterMs)).toBe(
      0,
    );
  });
});

describe('one look at a part', () => {
  it('watches a part from when it is first seen, and gives one that is gone a restart time', () => {
    const seen = observePart(undefined, worker, T0);
    expect(seen.change).toEqual({ kind: 'seen', pid: 100 });
    expect(observePart(seen.part, worker, T0 + 1000)).toEqual({ part: seen.part, change: null });

    const gone = observePart(seen.part, null, T0 + 2000);
    expect(gone.change).toEqual({ kind: 'exited', pid: 100, restartInMs: 1000, consecutive: 0 });
    expect(gone.part).toMatchObject({ pid: null, exitedPid: 100, nextRestartAt: '2026-12-05T09:00:03.000Z' });
    // still down a look later: the same restart time, no second exit
    expect(observePart(gone.part, null, T0 + 2500)).toEqual({ part: gone.part, change: null });
    expect(restartDue(gone.part, T0 + 2999)).toBe(false);
    expect(restartDue(gone.part, T0 + 3000)).toBe(true);
  });

  it('never watches a part that runs in `dev`, nor one never seen', () => {
    expect(observePart(undefined, { pid: 7, command: 'dev' }, T0)).toEqual({ part: undefined, change: null });
    expect(observePart(undefined, null, T0)).toEqual({ part: undefined, change: null });
  });

  it('a second exit soon after a restart waits twice as long; a failed restart longer again', () => {
    const first = observePart(observePart(undefined, worker, T0).part, null, T0 + 1000).part!;
    const back = restarted(first, 200, T0 + 2000);
    expect(back).toMatchObject({ pid: 200, restarts: 1, nextRestartAt: null, lastError: null });
    const again = observePart(back, null, T0 + 5000);
    expect(again.change).toEqual({ kind: 'exited', pid: 200, restartInMs: 2000, consecutive: 1 });
    const failed = restartFailed(again.part!, 'the worker exited during start-up', T0 + 7000);
    expect(failed).toMatchObject({
      consecutive: 2,
      nextRestartAt: '2026-12-05T09:00:11.000Z',
      lastError: 'the worker exited during start-up',
    });
    expect(supervisionLines(failed, T0 + 8000)).toEqual([
      '          exited at 2026-12-05T09:00:05.000Z (pid 200); the supervisor restarts it in 3 s (restart 3 in a row)',
      '          the last restart failed: the worker exited during start-up',
    ]);
  });

  it('a part another start brought back is watched as its new process', () => {
    const gone = observePart(observePart(undefined, worker, T0).part, null, T0 + 1000).part;
    const back = observePart(gone, { pid: 300, command: 'worker' }, T0 + 1500);
    expect(back.change).toEqual({ kind: 'back', pid: 300 });
    expect(back.part).toMatchObject({ pid: 300, nextRestartAt: null, restarts: 0 });
  });
});

describe('status lines', () => {
  it('say nothing of a part that never exited, and how often one was restarted', () => {
    const seen = observePart(undefined, worker, T0).part;
    expect(supervisionLines(seen, T0)).toEqual([]);
    const gone = observePart(seen, null, T0 + 1000).part!;
    expect(supervisionLines(gone, T0 + 2000)).toEqual([
      '          exited at 2026-12-05T09:00:01.000Z (pid 100); the supervisor is restarting it',
    ]);
    expect(supervisionLines(restarted(gone, 101, T0 + 3000), T0 + 4000)).toEqual([
      '          restarted once by the supervisor, last at 2026-12-05T09:00:03.000Z (it exited at 2026-12-05T09:00:01.000Z)',
    ]);
  });
});
