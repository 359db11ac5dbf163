import { existsSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { LOOPY_BIN_DIR } from '../../harness/env';
import { shellQuote } from '../../harness/shell-quote';
import { claudeAuthArgs } from '../claude-auth';
import { githubTokenFileEnv } from '../github-auth';
import type { DeclaredEnvironment } from '../env';
import type { WorkItemDirs } from '../paths';
import { privateDir, writePrivate } from '../private-file';
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

/** Claude Code sources this file before each of its shell commands. */
const CLAUDE_ENV_FILE = 'CLAUDE_ENV_FILE';

/** The pane's CLAUDE_ENV_FILE, one per work item, written at each launch. */
export const claudeEnvFile = (dirs: WorkItemDirs, slug: string): string =>
  join(dirs.stateRoot, 'local', 'claude-env', `${slug}.sh`);

/**
 * What claude sources before each shell command: the pane's PATH again, then the user's own CLAUDE_ENV_FILE, if
 * any. Claude Code runs a command in a snapshot of the user's shell that exports claude's PATH; when it could not
 * make the snapshot (it allows 10 s, which a loaded machine overruns) it runs each command in a login shell, whose
 * profile (Debian's /etc/profile) sets PATH anew, without this installation's bin/: the plugin's
 * `!the-loop item show` and the agent's `the-loop pr create` then got "the-loop: command not found".
 */
export function claudeEnvScript(path: string | undefined, own: string | undefined): string {
  const lines = path ? [`export PATH=${shellQuote(path)}`] : [];
  if (own) lines.push(`if [ -r ${shellQuote(own)} ]; then . ${shellQuote(own)}; fi`);
  return `${lines.join('\n')}\n`;
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
 * (github-auth.ts); for claude the API key's `--settings` (claude-auth.ts) and, when this worker hosts turns, the
 * plugin, the hook channel's env and the CLAUDE_ENV_FILE that keeps the pane's PATH. A spawn and a restart launch
 * alike, so a restarted pane still reports its turns.
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
  const pane = await ctx.turns.openPane(at.workItem);
  const envFile = claudeEnvFile(at.dirs, at.slug);
  const env = paneEnvironment(withGitHub, { ...pane.env, [CLAUDE_ENV_FILE]: envFile }, processEnv(ctx).PATH);
  const own = withGitHub.find((f) => f.name === CLAUDE_ENV_FILE)?.value ?? processEnv(ctx)[CLAUDE_ENV_FILE];
  await privateDir(dirname(envFile));
  await writePrivate(
    envFile,
    claudeEnvScript(env.find((e) => e.name === 'PATH')?.value, own === envFile ? undefined : own),
  );
  return { env, args: [...auth, ...pluginArgs(), ...pane.args] };
}
