import { jest } from '@jest/globals';
import { BURST_QUIET_MS, BurstHold } from '../../../src/webhook/burst-hold';
import type { ForwarderStats, Forwarding } from '../../../src/webhook/forwarder';
import type { AcceptedDelivery } from '../../../src/webhook/inbox';

const delivery = (id: string): AcceptedDelivery =>
  ({ deliveryId: id, event: 'issue_comment', keys: [`delivery:${id}`] }) as unknown as AcceptedDelivery;

/** A forwarding that records what it was handed, counting it pending as the real ones do. */
function recording(stats: ForwarderStats) {
  const handed: string[] = [];
  const closed: (number | undefined)[] = [];
  const forwarding: Forwarding = {
    enqueue(d) {
      stats.pending++;
      handed.push(d.deliveryId);
    },
    async close(graceMs) {
      closed.push(graceMs);
    },
  };
  return { forwarding, handed, closed };
}

describe('burst hold', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());
  const setUp = (maxHoldMs = 10_000) => {
    const stats: ForwarderStats = { forwarded: 0, retried: 0, pending: 0 };
    const inner = recording(stats);
    return { stats, ...inner, hold: new BurstHold(inner.forwarding, stats, maxHoldMs) };
  };

  it('hands a lone delivery on once no request has been in flight for BURST_QUIET_MS', () => {
    const { hold, handed, stats } = setUp();
    const end = hold.requestStarted();
    hold.enqueue(delivery('a'));
    expect(handed).toEqual([]);
    expect(stats.pending).toBe(1);
    end();
    jest.advanceTimersByTime(BURST_QUIET_MS - 1);
    expect(handed).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(handed).toEqual(['a']);
    expect(stats.pending).toBe(1);
  });

  it('holds deliveries while other requests are being received, and hands them all on when the last ends', () => {
    const { hold, handed, stats } = setUp();
    const endA = hold.requestStarted();
    const endB = hold.requestStarted();
    hold.enqueue(delivery('a'));
    endA();
    const endC = hold.requestStarted();
    hold.enqueue(delivery('b'));
    endB();
    jest.advanceTimersByTime(BURST_QUIET_MS);
    expect(handed).toEqual([]);
    expect(stats.pending).toBe(2);
    endC();
    jest.advanceTimersByTime(BURST_QUIET_MS);
    expect(handed).toEqual(['a', 'b']);
    expect(stats.pending).toBe(2);
  });

  it('counts a request that ends twice (answered, then its connection closed) once', () => {
    const { hold, handed } = setUp();
    const endA = hold.requestStarted();
    const endB = hold.requestStarted();
    endA();
    endA();
    hold.enqueue(delivery('a'));
    jest.advanceTimersByTime(BURST_QUIET_MS);
    expect(handed).toEqual([]);
    endB();
    jest.advanceTimersByTime(BURST_QUIET_MS);
    expect(handed).toEqual(['a']);
  });

  it('keeps holding when the next requests come within BURST_QUIET_MS of the last answers (a group answered at once)', () => {
    const { hold, handed } = setUp();
    const ends = [hold.requestStarted(), hold.requestStarted()];
    hold.enqueue(delivery('a'));
    hold.enqueue(delivery('b'));
    for (const end of ends) end();
    jest.advanceTimersByTime(BURST_QUIET_MS - 1);
    const next = hold.requestStarted();
    jest.advanceTimersByTime(BURST_QUIET_MS);
    expect(handed).toEqual([]);
    next();
    jest.advanceTimersByTime(BURST_QUIET_MS);
    expect(handed).toEqual(['a', 'b']);
  });

  it('hands on what was accepted with no request in flight (a replay) at once', () => {
    const { hold, handed } = setUp();
    hold.enqueue(delivery('a'));
    expect(handed).toEqual(['a']);
  });

  it('hands on a burst that does not end after maxHoldMs', () => {
    const { hold, handed } = setUp(10_000);
    hold.requestStarted();
    hold.enqueue(delivery('a'));
    jest.advanceTimersByTime(9_999);
    expect(handed).toEqual([]);
    hold.enqueue(delivery('b'));
    jest.advanceTimersByTime(1);
    expect(handed).toEqual(['a', 'b']);
    // the next one held starts a bound of its own
    hold.enqueue(delivery('c'));
    jest.advanceTimersByTime(9_999);
    expect(handed).toEqual(['a', 'b']);
    jest.advanceTimersByTime(1);
    expect(handed).toEqual(['a', 'b', 'c']);
  });

  it('holds nothing with a bound of 0', () => {
    const { hold, handed } = setUp(0);
    hold.requestStarted();
    hold.enqueue(delivery('a'));
    expect(handed).toEqual(['a']);
  });

  it('hands on what it holds before closing forwarding, with the grace given', async () => {
    const { hold, handed, closed } = setUp();
    hold.requestStarted();
    hold.enqueue(delivery('a'));
    await hold.close(5_000);
    expect(handed).toEqual(['a']);
    expect(closed).toEqual([5_000]);
  });
});
