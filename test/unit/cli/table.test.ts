import { alignColumns } from '../../../src/cli/table';

test('alignColumns pads every column but the last to its widest cell, with no trailing blanks', () => {
  expect(
    alignColumns([
      ['SESSION', 'STATUS', 'GOAL'],
      ['s-1', 'running', 'ship it'],
      ['s-22', 'stopped (limit)', ''],
    ]),
  ).toEqual([
    'SESSION  STATUS           GOAL',
    's-1      running          ship it',
    's-22     stopped (limit)',
  ]);
});
