import { LoadScaledDeadline, loadFactor, type LoadProbe } from '../../../src/process/load-scaled-deadline';

/** A clock and load average the test moves by hand. */
function probe(cores: number): LoadProbe & { at: number; loadNow: number } {
  const p = {
    at: 1000,
    loadNow: 0,
    cores,
    now: () => p.at,
    load: () => p.loadNow,
  };
  return p;
}

describe('loadFactor', () => {
  it('is 1 on a machine no busier than its cores, the load per core above that, and at most 8', () => {
    expect(loadFactor(0.3, 2)).toBe(1);
    expect(loadFactor(2, 2)).toBe(1);
    expect(loadFactor(5, 2)).toBe(2.5);
    expect(loadFactor(40, 2)).toBe(8);
    expect(loadFactor(Number.NaN, 2)).toBe(1);
    expect(loadFactor(4, 0)).toBe(1);
  });
});

describe('LoadScaledDeadline', () => {
  it('allows the base time on an idle machine', () => {
    const p = probe(2);
    const deadline = new LoadScaledDeadline(60_000, p);
    p.at += 59_999;
    expect(deadline.expired()).toBe(false);
    p.at += 1;
    expect(deadline.expired()).toBe(true);
    expect(deadline.describe()).toBe('60 s (not stretched: a load of 0.0 on 2 cores at most)');
  });

  it('stretches with the highest load seen while waiting, and keeps it when the load falls again', () => {
    const p = probe(2);
    const deadline = new LoadScaledDeadline(60_000, p);
    p.at += 70_000;
    p.loadNow = 12; // a busy machine: 6 per core
    expect(deadline.expired()).toBe(false);
    p.loadNow = 0.5;
    p.at += 280_000; // 350 s in all, under 360 s
    expect(deadline.expired()).toBe(false);
    p.at += 10_000;
    expect(deadline.expired()).toBe(true);
    expect(deadline.describe()).toBe('360 s (60 s on an idle machine, ×6.0 for a load of 12.0 on 2 cores)');
  });
});
