import type { HarnessName } from '../config/schema';
import type { HarnessRunRequest } from '../harness';
import { claudeAuthArgs } from '../work-item/claude-auth';
import { credentialNames, readEnvFile } from '../work-item/env';
import { workItemDirs } from '../work-item/paths';
import type { ActivityDeps } from './deps';

const CLAUDE_KEY = 'ANTHROPIC_API_KEY';

/**
 * The config's part of a goal harness's environment (the allow-list itself is allowedEnvironment's): what
 * `harness.<name>.env` lists, with env.file's value, else the worker's; and the credential names and every other name
 * env.file declares, which stay out although the harness's own names would let them in (claude's
 * `ANTHROPIC_API_KEY`), unless they are listed.
 */
export function harnessEnvironment(
  deps: Pick<ActivityDeps, 'config'>,
  harness: HarnessName,
  processEnv: NodeJS.ProcessEnv = process.env,
): { env: Record<string, string>; withheld: string[] } {
  const fileValues = readEnvFile(deps.config.env.file);
  const listed = new Set(deps.config.harness[harness].env);
  const keptOut = new Set([...credentialNames(deps.config), ...fileValues.keys()]);
  const env: Record<string, string> = {};
  for (const name of listed) {
    const value = fileValues.get(name) ?? processEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return { env, withheld: [...keptOut].filter((name) => !listed.has(name)).sort() };
}

/**
 * The request as the harness is launched with it: its environment under the policy above, and claude's API key (when
 * harness.claude.env does not list it) through Claude Code's apiKeyHelper, as hosted sessions get it: a 0600 file
 * that a `--settings` file's helper prints, in no environment and no argv. Without a key, an existing login is used.
 */
export async function withHarnessCredentials(
  deps: Pick<ActivityDeps, 'config' | 'stateDir'>,
  harness: HarnessName,
  request: HarnessRunRequest,
  processEnv: NodeJS.ProcessEnv = process.env,
): Promise<HarnessRunRequest> {
  const { env, withheld } = harnessEnvironment(deps, harness, processEnv);
  const auth =
    harness === 'claude' && !(CLAUDE_KEY in env)
      ? await claudeAuthArgs(deps.config, workItemDirs(deps.config, deps.stateDir), processEnv)
      : [];
  return {
    ...request,
    env: { ...request.env, ...env },
    withheld,
    options: { ...request.options, extraArgs: [...auth, ...(request.options.extraArgs ?? [])] },
  };
}
