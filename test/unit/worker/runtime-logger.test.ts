import { writeTo } from '../../../src/worker/runtime';
import { capturedLogger } from '../../support/captured-logger';

describe("the worker's SDK log entries", () => {
  it('become pino lines at their level, with the SDK fields', () => {
    const { logger, output } = capturedLogger({ format: 'json', level: 'info' });
    const write = writeTo(logger);
    write({
      level: 'WARN',
      message: 'Activity failed',
      timestampNanos: 0n,
      meta: { sdkComponent: 'activity', workflowId: 'work-item/github:o/r#1', activityType: 'deliver' },
    });
    write({ level: 'DEBUG', message: 'below the level', timestampNanos: 0n });
    write({ level: 'INFO', message: 'Worker state changed', timestampNanos: 0n });
    const lines = output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'Activity failed',
        sdkComponent: 'activity',
        workflowId: 'work-item/github:o/r#1',
        activityType: 'deliver',
      }),
      expect.objectContaining({ level: 30, msg: 'Worker state changed' }),
    ]);
  });
});
