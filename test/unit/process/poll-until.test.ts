import { pollUntil } from '../../../src/process/poll-until';

describe('pollUntil', () => {
  it('returns the first answer that is not false, null or undefined, after asking again', async () => {
    const answers: unknown[] = [false, null, undefined, 0, 'ignored'];
    let asked = 0;
    const found = await pollUntil(() => answers[asked++], { timeoutMs: 10_000, intervalMs: 1 });
    expect(found).toBe(0);
    expect(asked).toBe(4);
  });

  it('awaits an async condition', async () => {
    let n = 0;
    const found = await pollUntil(async () => ((n += 1) >= 3 ? { n } : undefined), {
      timeoutMs: 10_000,
      intervalMs: 1,
    });
    expect(found).toEqual({ n: 3 });
  });

  it('gives up with undefined once the time is over, having asked at least once', async () => {
    let asked = 0;
    const found = await pollUntil(
      () => {
        asked += 1;
        return false;
      },
      { timeoutMs: 0, intervalMs: 1 },
    );
    expect(found).toBeUndefined();
    expect(asked).toBe(1);
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    const waiting = pollUntil(() => false, {
      timeoutMs: 600_000,
      intervalMs: 600_000,
      signal: controller.signal,
    });
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('ends with the error a condition throws', async () => {
    await expect(
      pollUntil(
        () => {
          throw new Error('the process died');
        },
        { timeoutMs: 10_000, intervalMs: 1 },
      ),
    ).rejects.toThrow('the process died');
  });
});
