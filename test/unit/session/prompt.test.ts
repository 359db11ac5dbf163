import { PROMPT_PLACEHOLDERS, renderPrompt, unknownPlaceholders } from '../../../src/session/prompt';

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
