import { PROMPT_PLACEHOLDERS, renderPrompt, unknownPlaceholders } from '../../../src/session/prompt';
import { buildPromptVars, NO_USER_UPDATES } from '../../../src/session/prompt-vars';

test('renderPrompt substitutes once and keeps JSON-looking text', () => {
  const out = renderPrompt('Goal: {goal} in {session_dir}. Stop: {"state": "stopped"} {{goal}}', {
    goal: 'do {session_dir}',
    session_dir: '/s',
  });
  expect(out).toBe('Goal: do {session_dir} in /s. Stop: {"state": "stopped"} {goal}');
});

test('unknownPlaceholders lists typos but not escaped braces', () => {
  expect(unknownPlaceholders('{goal} {gaol} {{nope}} {gaol} {"k": 1}')).toEqual(['gaol']);
  expect(PROMPT_PLACEHOLDERS).toContain('child_requests_dir');
});

test('buildPromptVars fills every placeholder with absolute session paths', () => {
  const input = {
    sessionDir: '/w/.loopy_loop/sessions/s1',
    sessionId: 's1',
    goal: 'ship it',
    userUpdates: '  \n',
    iteration: 3,
    routineId: 'goal_check',
  };
  const vars = buildPromptVars(input);
  expect(Object.keys(vars).sort()).toEqual([...PROMPT_PLACEHOLDERS].sort());
  expect(vars.goal).toBe('ship it');
  expect(vars.user_updates).toBe(NO_USER_UPDATES);
  expect(buildPromptVars({ ...input, userUpdates: '\n please rebase \n' }).user_updates).toBe(
    'please rebase',
  );
  expect(vars.goal_check_file).toBe('/w/.loopy_loop/sessions/s1/iterations/0003_goal_check/goal_check.json');
  expect(vars.harness_output_dir).toBe('/w/.loopy_loop/sessions/s1/harness_outputs/0003_goal_check');
  expect(renderPrompt('{iteration} {finished_file}', vars)).toBe(
    '3 /w/.loopy_loop/sessions/s1/project_state/finished.md',
  );
});
