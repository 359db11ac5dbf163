import { mergeHistory } from '../../../src/session/history';

const entry = (iteration: number, success = true) => ({
  iteration,
  routine_id: 'worker',
  started_at: '2026-11-29T00:00:00.000Z',
  finished_at: '2026-11-29T00:00:01.000Z',
  success,
  error: success ? null : 'failed',
  harness_run_id: `run-${iteration}`,
  usage: null,
  recovered: false,
});

test('mergeHistory: the complete older view, with the newer entries winning, in iteration order', () => {
  const older = [entry(1), entry(2), entry(3, false)];
  const newer = [entry(3), entry(4)];
  expect(mergeHistory(older, newer)).toEqual([entry(1), entry(2), entry(3), entry(4)]);
  expect(mergeHistory([], newer)).toEqual(newer);
  expect(mergeHistory(older, [])).toEqual(older);
});
