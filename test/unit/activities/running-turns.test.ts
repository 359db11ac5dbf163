import {
  HEARTBEAT_MIN_MS,
  nextHeartbeatMs,
  registerTurn,
  stopTurn,
} from '../../../src/activities/running-turns';

describe('running turns: their own stop switch and their heartbeat interval', () => {
  it('stops the turn this process runs, and only that one, until it is released', () => {
    const turn = registerTurn('/s/a', 3);
    const other = registerTurn('/s/b', 3);
    expect(stopTurn('/s/a', 4)).toBe(false);
    expect(stopTurn('/s/a', 3)).toBe(true);
    expect(turn.signal.aborted).toBe(true);
    expect(other.signal.aborted).toBe(false);
    turn.release();
    expect(stopTurn('/s/a', 3)).toBe(false);
    other.release();
  });

  it('a released turn does not unregister a later attempt of the same iteration', () => {
    const first = registerTurn('/s/c', 1);
    const second = registerTurn('/s/c', 1);
    first.release();
    expect(stopTurn('/s/c', 1)).toBe(true);
    expect(second.signal.aborted).toBe(true);
    second.release();
  });

  it('doubles while nothing changes, up to a third of the heartbeat timeout and a minute; back to 1 s on a change', () => {
    const intervals = [HEARTBEAT_MIN_MS];
    for (let i = 0; i < 6; i += 1) intervals.push(nextHeartbeatMs(intervals.at(-1) ?? 0, false, 30_000));
    expect(intervals).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
    expect(nextHeartbeatMs(8000, false, 10_000)).toBeCloseTo(3333, 0);
    expect(nextHeartbeatMs(8000, true, 30_000)).toBe(HEARTBEAT_MIN_MS);
    // a heartbeat timeout under 3 s never makes heartbeats more frequent than once a second
    expect(nextHeartbeatMs(1000, false, 2000)).toBe(HEARTBEAT_MIN_MS);
    expect(nextHeartbeatMs(8000, false, undefined)).toBe(10_000);
    // thousands of live turns: a 2-minute timeout beats every 40 s; a longer one never less often than once a minute
    expect(nextHeartbeatMs(32_000, false, 120_000)).toBe(40_000);
    expect(nextHeartbeatMs(40_000, false, 120_000)).toBe(40_000);
    expect(nextHeartbeatMs(64_000, false, 600_000)).toBe(60_000);
  });
});
