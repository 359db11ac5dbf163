import {
  goalDetails,
  goalSummary,
  searchableGoal,
} from '../../../../src/workflows/goal-session/presentation';

describe('how a goal is shown in the Web UI', () => {
  test('the summary is the first line, with what Markdown would mangle escaped', () => {
    expect(goalSummary('Add a --json flag\n\nmore')).toBe('Add a -\\-json flag');
    expect(goalSummary('use *stars* and `ticks` and <b>')).toBe(
      'use \\*stars\\* and \\`ticks\\` and \\<b\\>',
    );
    expect(goalSummary('x'.repeat(300))).toHaveLength(200);
  });

  test('the details hold the whole goal in a fence nothing inside can close', () => {
    const goal = 'Run:\n```sh\nnpm test -- --json\n```';
    const details = goalDetails(goal, '/work/.loopy_loop/sessions/s');
    expect(details).toContain('````text\n' + goal + '\n````');
    expect(goalDetails('plain', '/d')).toContain('```text\nplain\n```');
  });

  test('the searchable goal is clipped', () => {
    expect(searchableGoal('  g  ')).toBe('g');
    expect(searchableGoal('y'.repeat(5000))).toHaveLength(1000);
  });
});
