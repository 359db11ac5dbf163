import { existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { LOOPY_BIN_DIR } from '../../harness/env';
import { claudeAuthArgs } from '../claude-auth';
import { githubTokenFileEnv } from '../github-auth';
import type { DeclaredEnvironment } from '../env';
import type { WorkItemHarness } from '../schemas';
import { processEnv, type HostContext, type Located } from './context';

/** The repository's Claude Code plugin (from src/ or from dist/src/): every hosted claude loads it. */
export const PLUGIN_DIR = [
  resolve(__dirname, '..', '..', '..', 'plugin'),
  resolve(__dirname, '..', '..', '..', '..', 'plugin'),
].find((dir) => existsSync(join(dir, '.claude-plugin', 'plugin.json')));

/** `--plugin-dir <repo>/plugin`, when this installation ships it. */
export function pluginArgs(): string[] {
  return PLUGIN_DIR ? ['--plugin-dir', PLUGIN_DIR] : [];
}

/**
 * The pane's environment: the declared variables, the hook channel's (socket, token file, log, work item), and
 * PATH with this installation's bin/ first, so the plugin's commands and hooks run this `the-loop`.
 */
export function paneEnvironment(
  forwarded: DeclaredEnvironment['forwarded'],
  hookEnv: Record<string, string>,
  basePath: string | undefined,
): { name: string; value: string }[] {
  const path = forwarded.find((f) => f.name === 'PATH')?.value ?? basePath ?? '';
  const env = forwarded.filter((f) => f.name !== 'PATH' && !(f.name in hookEnv));
  for (const [name, value] of Object.entries(hookEnv)) env.push({ name, value });
  const withBin = [LOOPY_BIN_DIR ?? '', path].filter(Boolean).join(delimiter);
  if (withBin) env.push({ name: 'PATH', value: withBin });
  return env;
}

/**
 * The config and state directory of the worker that hosts the pane: the-loop's commands there (the plugin's
 * command and hooks, `pr create`) then read the same registry and reach the same GitHub as the worker, wherever
 * the worker's config lives.
 */
function theLoopOfThisWorker(ctx: HostContext): { name: string; value: string }[] {
  return [
    ...(ctx.configPath ? [{ name: 'THE_LOOP_CONFIG', value: ctx.configPath }] : []),
    { name: 'THE_LOOP_STATE_DIR', value: ctx.stateDir },
  ];
}

/**
 * What a (re)launched pane of `harness` gets beyond its base command and conversation: the GitHub token's file
 * (github-auth.ts); for claude the API key's `--settings` (claude-auth.ts) and, when this worker hosts turns, the plugin and the hook channel's env. A spawn and
 * a restart launch alike, so a restarted pane still reports its turns.
 */
export async function paneLaunch(
  ctx: HostContext,
  at: Located,
  harness: WorkItemHarness,
  forwarded: DeclaredEnvironment['forwarded'],
): Promise<{ env: { name: string; value: string }[]; args: string[] }> {
  const withGitHub = [
    ...forwarded,
    ...theLoopOfThisWorker(ctx),
    ...(await githubTokenFileEnv(ctx.config, at.dirs, processEnv(ctx))),
  ];
  if (harness !== 'claude') return { env: withGitHub, args: [] };
  const auth = await claudeAuthArgs(ctx.config, at.dirs, processEnv(ctx));
  if (!ctx.turns) return { env: withGitHub, args: auth };
  const hookEnv = await ctx.turns.openPane(at.workItem);
  return {
    env: paneEnvironment(withGitHub, hookEnv, processEnv(ctx).PATH),
    args: [...auth, ...pluginArgs()],
  };
}
