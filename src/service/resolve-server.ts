import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { theLoopCacheDir } from '../config/cache-dir';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findExecutable } from '../harness/find-executable';
import { runWithProgress } from './resolve-cli';
import { PINNED_TEMPORAL_SERVER_VERSION } from './temporal-version';

/** The Temporal server and its SQL schema tool, as `go install` names them. */
export interface ResolvedServer {
  server: string;
  sqlTool: string;
  version: string;
}

const MODULE = 'go.temporal.io/server';
/** Binary name (what `go install` writes) → package that builds it. */
const BINARIES = { server: 'cmd/server', sql: 'cmd/tools/sql' } as const;

export function serverCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(theLoopCacheDir(env), `temporal-server-${PINNED_TEMPORAL_SERVER_VERSION}`);
}

async function serverVersion(path: string): Promise<string | null> {
  try {
    const { stdout } = await promisify(execFile)(path, ['--version'], { timeout: 15000 });
    return /(\d+\.\d+\.\d+)/.exec(stdout)?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * The pinned Temporal server (`server`) and `temporal-sql-tool` (`sql`) from the per-machine cache, built there
 * with `go install` when missing. A cluster cannot run without them, so a failure names every reason.
 */
export async function resolveTemporalServer(
  options: { env?: NodeJS.ProcessEnv; onProgress?: (line: string) => void } = {},
): Promise<ResolvedServer> {
  const env = options.env ?? process.env;
  const progress = options.onProgress ?? (() => undefined);
  const dir = serverCacheDir(env);
  const server = join(dir, 'server');
  const sqlTool = join(dir, 'sql');
  const missing = Object.entries(BINARIES).filter(([name]) => !existsSync(join(dir, name)));
  if (missing.length > 0) {
    const go = findExecutable('go', env);
    if (!go) {
      throw new Error(
        `No Temporal server ${PINNED_TEMPORAL_SERVER_VERSION} in ${dir} and no \`go\` on PATH to build it. ` +
          `Fix: install Go (it builds ${MODULE}/cmd/server and cmd/tools/sql @v${PINNED_TEMPORAL_SERVER_VERSION}).`,
      );
    }
    mkdirSync(dir, { recursive: true });
    for (const [name, pkg] of missing) {
      progress(
        `Building the Temporal ${name === 'sql' ? 'SQL tool' : 'server'} v${PINNED_TEMPORAL_SERVER_VERSION} with Go into ${dir} (once per machine; several minutes)…`,
      );
      try {
        await runWithProgress(
          go,
          ['install', `${MODULE}/${pkg}@v${PINNED_TEMPORAL_SERVER_VERSION}`],
          { ...env, GOBIN: dir, CGO_ENABLED: '0' },
          progress,
        );
      } catch (error) {
        throw new Error(`Building the Temporal server failed: ${(error as Error).message}`, { cause: error });
      }
    }
  }
  const version = await serverVersion(server);
  if (version !== PINNED_TEMPORAL_SERVER_VERSION) {
    throw new Error(
      `${server} ${version ? `is version ${version}` : 'does not run'}, not ${PINNED_TEMPORAL_SERVER_VERSION}: delete ${dir} to rebuild it.`,
    );
  }
  if ((await serverVersion(sqlTool)) === null) {
    throw new Error(`${sqlTool} does not run: delete ${dir} to rebuild it.`);
  }
  return { server, sqlTool, version };
}
