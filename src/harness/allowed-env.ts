import type { HarnessName } from './types';

/**
 * What every goal harness inherits from the worker's environment: what a shell and the tools it starts need to run
 * (programs, the user, the locale, the terminal, temporary files, the time zone), and nothing that grants access.
 * `NAME_*` stands for every name that starts with `NAME_`.
 */
export const BASE_ENV_NAMES = [
  'PATH',
  'HOME',
  'LANG',
  'LC_*',
  'TERM',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'TZ',
] as const;

/**
 * Each agent CLI's own settings (where it sends requests, where it keeps its state, its switches), as its
 * documentation names them; `command` runs the user's own line, which has no such names.
 */
export const HARNESS_ENV_NAMES: Readonly<Record<HarnessName, readonly string[]>> = {
  claude: ['ANTHROPIC_*', 'CLAUDE_*', 'DISABLE_*'],
  codex: ['OPENAI_*', 'CODEX_*'],
  cursor: ['CURSOR_*'],
  command: [],
};

/** the-loop's own variables name its config and state directory, which hold the webhook secret and keys. */
const NEVER_INHERITED = 'THE_LOOP_';

/** What the caller decided from the config: see harnessEnvironment in src/activities/harness-credentials.ts. */
export interface HarnessEnvPolicy {
  /** Values handed to the harness on top of what it inherits: what `harness.<name>.env` lists. */
  listed?: Readonly<Record<string, string>>;
  /** Names kept out although a name above allows them (credentials, env.file's names): `ANTHROPIC_API_KEY`. */
  withheld?: readonly string[];
}

function allows(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/**
 * A goal harness's environment, as an allow-list: of `inherited` (the worker's environment) only the base names and
 * the harness's own, less what is withheld; then what is listed. Never a `THE_LOOP_*` name, whoever hands it over.
 */
export function allowedEnvironment(
  harness: HarnessName,
  inherited: NodeJS.ProcessEnv,
  policy: HarnessEnvPolicy = {},
): Record<string, string> {
  const patterns = [...BASE_ENV_NAMES, ...HARNESS_ENV_NAMES[harness]];
  const withheld = new Set(policy.withheld);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (value === undefined || withheld.has(name)) continue;
    if (patterns.some((pattern) => allows(pattern, name))) env[name] = value;
  }
  Object.assign(env, policy.listed);
  for (const name of Object.keys(env)) if (name.startsWith(NEVER_INHERITED)) delete env[name];
  return env;
}
