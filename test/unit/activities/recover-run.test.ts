import { completedAsSignalled } from '../../../src/activities/recover-run';
import type { HarnessRunResult } from '../../../src/harness';

const usage = {
  input_tokens: 2000,
  output_tokens: 10,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
  cost_usd: 0.01,
  num_turns: 2,
  duration_ms: 2426,
};

function run(over: Partial<HarnessRunResult>): HarnessRunResult {
  return {
    success: true,
    text: 'done',
    error: null,
    exitCode: 0,
    signal: null,
    conversationId: null,
    usage,
    permissionDenials: null,
    budgetExceeded: false,
    timedOut: false,
    aborted: false,
    ...over,
  };
}

const exit = (code: number | null, signal: string | null) => ({
  schema_version: 1 as const,
  code,
  signal,
  ended_at: '2026-12-02T03:15:20Z',
});

describe('completedAsSignalled: a reaped harness that had already done its turn', () => {
  it('is finished when it printed a successful result with its usage and exited 0', () => {
    // as the kill -9 loop caught claude: result printed, SIGTERM during its exit, exit code 0
    expect(completedAsSignalled(exit(0, null), run({}))).toBe(true);
  });

  it('is not when the signal ended it, it exited non-zero, printed no result or no usage, or left no exit.json', () => {
    expect(completedAsSignalled(exit(null, 'SIGTERM'), run({}))).toBe(false);
    expect(completedAsSignalled(exit(143, null), run({}))).toBe(false);
    expect(completedAsSignalled(exit(0, null), run({ success: false, error: 'no result' }))).toBe(false);
    // a command harness reports no usage: its exit 0 after a signal proves nothing
    expect(completedAsSignalled(exit(0, null), run({ usage: null }))).toBe(false);
    expect(completedAsSignalled(null, run({}))).toBe(false);
  });
});
