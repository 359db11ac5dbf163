/** Every `{name}` a routine prompt may use; anything else is a typo that would reach the agent verbatim. */
export const PROMPT_PLACEHOLDERS = [
  'goal',
  'goal_file',
  'session_dir',
  'session_id',
  'control_file',
  'updates_file',
  'user_updates',
  'project_state_dir',
  'finished_file',
  'iteration',
  'iteration_dir',
  'routine_id',
  'harness_output_dir',
  'goal_check_file',
  'eval_checks_dir',
  'eval_results_dir',
  'child_requests_dir',
  'children_dir',
] as const;

export type PromptPlaceholder = (typeof PROMPT_PLACEHOLDERS)[number];

// `{{` and `}}` are literal braces (so prompts can show JSON); `{name}` is a placeholder.
const TOKEN = /\{\{|\}\}|\{([A-Za-z0-9_]+)\}/g;

/** Substitutes in one pass, so a value that itself contains `{goal}` is never expanded again. */
export function renderPrompt(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(TOKEN, (token: string, name: string | undefined) => {
    if (token === '{{') return '{';
    if (token === '}}') return '}';
    if (name !== undefined && Object.prototype.hasOwnProperty.call(vars, name)) return vars[name] ?? '';
    return token;
  });
}

export function unknownPlaceholders(template: string): string[] {
  const known = new Set<string>(PROMPT_PLACEHOLDERS);
  const unknown: string[] = [];
  for (const match of template.matchAll(TOKEN)) {
    const name = match[1];
    if (name !== undefined && !known.has(name) && !unknown.includes(name)) unknown.push(name);
  }
  return unknown;
}
