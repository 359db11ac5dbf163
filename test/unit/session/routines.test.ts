import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { loadRoutinesFile, parseRoutinesYaml } from '../../../src/config/routines';
import { DEFAULT_ROUTINES } from '../../../src/session/default-routines';
import { pickRoutine, routineEmitsGoalCheck, type Routine } from '../../../src/session/routine-schedule';
import { unknownPlaceholders } from '../../../src/session/prompt';

function routine(id: string, when: Routine['when']): Routine {
  return { id, prompt: 'p', harness_options: {}, emits_goal_check: false, when };
}

describe('pickRoutine', () => {
  const set = [
    routine('planner', { first: true }),
    routine('worker', { default: true }),
    routine('review', { after: 'worker' }),
    routine('goal_check', { every: 3 }),
  ];
  const run = (n: number, prev: string | null): string => pickRoutine(set, n, prev).id;

  test('first, then every, then after, then default', () => {
    expect(run(1, null)).toBe('planner');
    expect(run(2, 'planner')).toBe('worker');
    expect(run(3, 'worker')).toBe('goal_check');
    expect(run(4, 'goal_check')).toBe('worker');
    expect(run(5, 'worker')).toBe('review');
    expect(run(6, 'review')).toBe('goal_check');
  });

  test('without a first routine iteration 1 uses the rules as usual', () => {
    expect(pickRoutine([routine('w', { default: true }), routine('c', { every: 1 })], 1, null).id).toBe('c');
    expect(() => pickRoutine([routine('x', { every: 2 })], 1, null)).toThrow(/default/);
  });

  test('the defaults plan, work, and check the goal every third iteration', () => {
    const ids = [1, 2, 3, 4, 5, 6].map((n) => pickRoutine(DEFAULT_ROUTINES, n, null).id);
    expect(ids).toEqual(['planner', 'worker', 'goal_check', 'worker', 'worker', 'goal_check']);
    expect(routineEmitsGoalCheck(routine('goal_check', { every: 3 }))).toBe(true);
  });
});

describe('DEFAULT_ROUTINES', () => {
  test('use only known placeholders and tell the agent what it needs', () => {
    for (const r of DEFAULT_ROUTINES) {
      expect(unknownPlaceholders(r.prompt)).toEqual([]);
      for (const needle of [
        '{goal_file}',
        '{user_updates}',
        '{control_file}',
        '"state": "stopped"',
        '{child_requests_dir}',
        '{eval_checks_dir}',
        'finished.md',
        'memory.md',
      ]) {
        expect(r.prompt).toContain(needle);
      }
    }
    const goalCheck = DEFAULT_ROUTINES.find((r) => r.id === 'goal_check');
    expect(goalCheck?.prompt).toContain('{goal_check_file}');
    expect(goalCheck?.emits_goal_check).toBe(true);
  });
});

describe('routines YAML', () => {
  const good = [
    'workflows:',
    '  - id: planner',
    '    prompt: "Plan {goal}"',
    '    when: { first: true }',
    '  - id: worker',
    '    prompt: |',
    '      Work on {goal}; stop via {control_file}: {"state": "stopped"}',
    '    harness: codex',
    '    harness_options: { conversation: continue, extra_args: [--model, o3] }',
    '  - id: goal_check',
    '    prompt: Check {goal_check_file}',
    '    emits_goal_check: true',
    '    when: { every: 3 }',
  ].join('\n');

  test('parses, applying defaults', () => {
    const routines = parseRoutinesYaml(good, 'w.yaml');
    expect(routines.map((r) => [r.id, r.when])).toEqual([
      ['planner', { first: true }],
      ['worker', { default: true }],
      ['goal_check', { every: 3 }],
    ]);
    expect(routines[1]?.harness_options).toEqual({ conversation: 'continue', extra_args: ['--model', 'o3'] });
    expect(routines[0]?.emits_goal_check).toBe(false);
  });

  test('loadRoutinesFile reads a file and names it when missing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routines-'));
    const file = path.join(dir, 'w.yaml');
    fs.writeFileSync(file, good);
    expect(loadRoutinesFile(file)).toHaveLength(3);
    expect(() => loadRoutinesFile(path.join(dir, 'nope.yaml'))).toThrow(
      /nope\.yaml: cannot read workflows file/,
    );
    fs.rmSync(dir, { recursive: true });
  });

  const cases: [string, string, RegExp][] = [
    ['bad YAML', 'workflows:\n  - id: a\n   prompt: x\n', /^f\.yaml:3:\d+: invalid YAML: /],
    [
      'duplicate key',
      'workflows:\n  - id: a\n    id: b\n',
      /^f\.yaml:3:\d+: invalid YAML: Map keys must be unique$/,
    ],
    [
      'unknown placeholder',
      'workflows:\n  - id: a\n    prompt: "do {gaol}"\n',
      /^f\.yaml:3:\d+: workflows\[0\]\.prompt: unknown placeholder \{gaol\}/,
    ],
    ['bad id', 'workflows:\n  - id: A b\n    prompt: x\n', /^f\.yaml:2:\d+: workflows\[0\]\.id: must match/],
    [
      'bad every',
      'workflows:\n  - id: a\n    prompt: x\n    when: { every: 0 }\n',
      /^f\.yaml:4:\d+: workflows\[0\]\.when\.every: /,
    ],
    [
      'two when keys',
      'workflows:\n  - id: a\n    prompt: x\n    when:\n      first: true\n      every: 2\n',
      /^f\.yaml:4:\d+: workflows\[0\]\.when: needs exactly one of first, every, after, default$/,
    ],
    [
      'unknown key',
      'workflows:\n  - id: a\n    prompt: x\n    prompts: y\n',
      /^f\.yaml:4:\d+: workflows\[0\]\.prompts: Unrecognized key/,
    ],
    [
      'missing prompt',
      'workflows:\n  - id: a\n    harness: claude\n',
      /^f\.yaml:2:\d+: workflows\[0\]\.prompt: is required$/,
    ],
    [
      'duplicate id',
      'workflows:\n  - id: a\n    prompt: x\n  - id: a\n    prompt: y\n    when: { every: 2 }\n',
      /^f\.yaml:4:\d+: workflows\[1\]\.id: duplicate id 'a'$/,
    ],
    [
      'after an unknown routine',
      'workflows:\n  - id: a\n    prompt: x\n  - id: b\n    prompt: y\n    when: { after: c }\n',
      /^f\.yaml:6:\d+: workflows\[1\]\.when\.after: no routine with id 'c'$/,
    ],
    [
      'two defaults',
      'workflows:\n  - id: a\n    prompt: x\n  - id: b\n    prompt: y\n',
      /^f\.yaml:4:\d+: workflows\[1\]\.when: exactly one routine must have/,
    ],
    [
      'no default',
      'workflows:\n  - id: a\n    prompt: x\n    when: { first: true }\n',
      /^f\.yaml:1:\d+: workflows: exactly one/,
    ],
    [
      'bad harness',
      'workflows:\n  - id: a\n    prompt: x\n    harness: gpt\n',
      /^f\.yaml:4:\d+: workflows\[0\]\.harness: /,
    ],
    ['empty', 'workflows: []\n', /^f\.yaml:1:\d+: workflows: needs at least one routine$/],
  ];
  test.each(cases)('%s is a one-line error with file, line and field', (_name, yaml, expected) => {
    let message = '';
    try {
      parseRoutinesYaml(yaml, 'f.yaml');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(expected);
    expect(message).not.toContain('\n');
  });
});
