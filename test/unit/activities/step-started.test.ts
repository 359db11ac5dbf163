import { startReportDelayMs } from '../../../src/activities/step-started';
import { QUEUED_AFTER_MS } from '../../../src/workflows/goal-session/queued-after';

describe('when a step reports its start', () => {
  const scheduled = 1_000_000;

  it('a step that starts at once reports shortly before the workflow would show it queued, not at once', () => {
    const delay = startReportDelayMs(1, scheduled, scheduled + 5);
    expect(delay).toBeGreaterThan(0);
    expect(5 + delay).toBeLessThan(QUEUED_AFTER_MS);
  });

  it('the time the step waited for a slot comes off the delay', () => {
    expect(startReportDelayMs(1, scheduled, scheduled + 300)).toBe(
      startReportDelayMs(1, scheduled, scheduled) - 300,
    );
  });

  it('a step that started late, when the workflow shows it queued already, reports at once', () => {
    expect(startReportDelayMs(1, scheduled, scheduled + QUEUED_AFTER_MS)).toBe(0);
    expect(startReportDelayMs(1, scheduled, scheduled + 60_000)).toBe(0);
  });

  it('a retry reports at once: the workflow timed the first attempt, not this one', () => {
    expect(startReportDelayMs(2, scheduled, scheduled)).toBe(0);
  });

  it("a clock behind the server's never delays the report past the workflow's wait", () => {
    expect(startReportDelayMs(1, scheduled, scheduled - 5_000)).toBeLessThan(QUEUED_AFTER_MS);
  });
});
