/**
 * Where the compiled supervisor (supervisor.c) is, once build-supervisor.ts has built it: one binary per machine,
 * per architecture and per version of its source, under the-loop's cache directory. A turn started by it costs two
 * execs (the supervisor, the harness) and no cgroup move; without it, turns are started by the POSIX shell
 * supervisor (supervisor.ts), which works everywhere and costs more.
 *
 * Node built-ins only (and this directory's): the launcher loads it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { theLoopCacheDir } from '../config/cache-dir';
import { isExecutable } from './find-executable';

/** Set to `shell`, the POSIX shell supervisor starts every turn, whether or not the compiled one is built. */
export const SUPERVISOR_ENV = 'THE_LOOP_SUPERVISOR';

/** The C source: beside this module under the test runner, in src/ of the package when this runs from dist/. */
export const SUPERVISOR_SOURCE = [
  join(__dirname, 'supervisor.c'),
  resolve(__dirname, '..', '..', '..', 'src', 'harness', 'supervisor.c'),
].find((file) => existsSync(file));

/**
 * The compiler's flags, tried in turn: linked statically where libc's archive is installed (with thousands of live
 * turns, each supervisor costs its own dirty pages: 48 KB static, 96 KB linked to libc.so; and no loader runs), else
 * dynamically. Part of the binary's digest, so that a change of them builds it again.
 */
export const SUPERVISOR_BUILDS: readonly (readonly string[])[] = [['-O2', '-static'], ['-O2']];

let digest: string | null = null;

/** Where this source's binary goes on this machine; null when the source is missing (a package without it). */
export function supervisorBinaryPath(env: NodeJS.ProcessEnv = process.env): string | null {
  if (SUPERVISOR_SOURCE === undefined) return null;
  digest ??= createHash('sha256')
    .update(`${process.platform}-${process.arch}\n${JSON.stringify(SUPERVISOR_BUILDS)}\n`)
    .update(readFileSync(SUPERVISOR_SOURCE))
    .digest('hex')
    .slice(0, 16);
  return join(theLoopCacheDir(env), 'supervisor', digest, 'the-loop-supervisor');
}

let found: string | null = null;

/**
 * The compiled supervisor, when it is built and not refused by THE_LOOP_SUPERVISOR=shell; else null (the shell
 * supervisor). Looked for at each turn until found: the worker builds it while its first turns start.
 */
export function compiledSupervisor(): string | null {
  if (process.env[SUPERVISOR_ENV] === 'shell') return null;
  if (found) return found;
  const file = supervisorBinaryPath();
  if (file && isExecutable(file)) found = file;
  return found;
}
