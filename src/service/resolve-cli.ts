import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { theLoopCacheDir } from '../config/cache-dir';
import { join } from 'node:path';
import { execa } from 'execa';
import { findExecutable } from '../harness/find-executable';
import { isCompatibleVersion, parseCliVersion, PINNED_TEMPORAL_CLI_VERSION } from './temporal-version';
import { errorLine } from '../errors';

export type CliSource = 'env' | 'path' | 'cache' | 'go-build' | 'download';

export interface ResolvedCli {
  path: string;
  version: string;
  source: CliSource;
}

export interface ResolveOptions {
  /** Progress lines for builds and downloads that take minutes. */
  onProgress?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Skip steps 3 and 4 (used by status, which must not build anything). */
  noInstall?: boolean;
}

function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(theLoopCacheDir(env), `temporal-${PINNED_TEMPORAL_CLI_VERSION}`);
}

async function versionOf(path: string): Promise<string | null> {
  const result = await execa(path, ['--version'], { timeout: 15000, reject: false, stdin: 'ignore' });
  return result.exitCode === 0 ? parseCliVersion(result.stdout) : null;
}

/** Runs a build that takes minutes, reporting progress every 15 s; rejects with the tail of its output. */
export async function runWithProgress(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onProgress: (l: string) => void,
) {
  const started = Date.now();
  const ticker = setInterval(
    () => onProgress(`  still building (${Math.round((Date.now() - started) / 1000)} s)…`),
    15000,
  );
  try {
    const result = await execa(cmd, args, {
      env,
      extendEnv: false,
      stdin: 'ignore',
      all: true,
      reject: false,
    });
    if (result.failed && result.exitCode === undefined) throw new Error(result.shortMessage);
    if (result.exitCode !== 0) {
      const tail = result.all.trim().split('\n').slice(-5).join(' | ');
      throw new Error(`${cmd} ${args.join(' ')} exited with ${result.exitCode}: ${tail}`);
    }
  } finally {
    clearInterval(ticker);
  }
}

async function downloadWithTestingPackage(dir: string, onProgress: (l: string) => void): Promise<string> {
  onProgress(
    `Downloading the Temporal CLI v${PINNED_TEMPORAL_CLI_VERSION} with @temporalio/testing into ${dir}…`,
  );
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download', downloadDir: dir, version: `v${PINNED_TEMPORAL_CLI_VERSION}` },
    },
  });
  await env.teardown();
  const found = readdirSync(dir).find((name) => name.startsWith('temporal') && !name.endsWith('.tmp'));
  if (!found) throw new Error(`the download finished but no temporal binary is in ${dir}`);
  return join(dir, found);
}

/**
 * Finds a usable Temporal CLI in this order: THE_LOOP_TEMPORAL_CLI, `temporal` on PATH (compatible versions only),
 * the per-machine cache, a `go install` build into that cache, the download @temporalio/testing performs.
 */
export async function resolveTemporalCli(options: ResolveOptions = {}): Promise<ResolvedCli> {
  const env = options.env ?? process.env;
  const progress = options.onProgress ?? (() => undefined);
  const tried: string[] = [];

  const explicit = env.THE_LOOP_TEMPORAL_CLI;
  if (explicit) {
    const version = await versionOf(explicit);
    if (version && isCompatibleVersion(version)) return { path: explicit, version, source: 'env' };
    tried.push(
      `THE_LOOP_TEMPORAL_CLI=${explicit}: ${version ? `version ${version} is outside >=1.3.0 <2` : 'does not run'}`,
    );
  }

  const onPath = findExecutable('temporal', env);
  if (onPath) {
    const version = await versionOf(onPath);
    if (version && isCompatibleVersion(version)) return { path: onPath, version, source: 'path' };
    tried.push(`${onPath}: ${version ? `version ${version} is outside >=1.3.0 <2` : 'does not run'}`);
  } else {
    tried.push('no `temporal` on PATH');
  }

  const dir = cacheDir(env);
  const cached = join(dir, 'temporal');
  if (existsSync(cached)) {
    const version = await versionOf(cached);
    if (version) return { path: cached, version, source: 'cache' };
    tried.push(`${cached}: does not run`);
  } else {
    tried.push(`no cached build at ${cached}`);
  }

  if (options.noInstall) throw cliNotFound(tried);

  const go = findExecutable('go', env);
  if (go) {
    mkdirSync(dir, { recursive: true });
    progress(
      `Building the Temporal CLI v${PINNED_TEMPORAL_CLI_VERSION} with Go into ${dir} (once per machine; a few minutes)…`,
    );
    try {
      await runWithProgress(
        go,
        ['install', `github.com/temporalio/cli/cmd/temporal@v${PINNED_TEMPORAL_CLI_VERSION}`],
        { ...env, GOBIN: dir, CGO_ENABLED: '0' },
        progress,
      );
      const version = await versionOf(cached);
      if (version) {
        progress(`Built ${cached} (temporal ${version}).`);
        return { path: cached, version, source: 'go-build' };
      }
      tried.push(`go install finished but ${cached} does not run`);
    } catch (error) {
      tried.push(`go install failed: ${(error as Error).message}`);
    }
  } else {
    tried.push('no `go` on PATH to build it');
  }

  try {
    const path = await downloadWithTestingPackage(dir, progress);
    const version = (await versionOf(path)) ?? PINNED_TEMPORAL_CLI_VERSION;
    return { path, version, source: 'download' };
  } catch (error) {
    tried.push(`download through @temporalio/testing failed: ${errorLine(error)}`);
  }
  throw cliNotFound(tried);
}

function cliNotFound(tried: string[]): Error {
  return new Error(
    `No Temporal CLI is available. Tried: ${tried.join('; ')}. ` +
      `Fix: install Go and rerun (it builds github.com/temporalio/cli/cmd/temporal@v${PINNED_TEMPORAL_CLI_VERSION}), ` +
      `put temporal >=1.3 <2 on PATH, or set THE_LOOP_TEMPORAL_CLI to its path.`,
  );
}
