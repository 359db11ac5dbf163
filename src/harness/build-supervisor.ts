import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { findExecutable, isExecutable } from './find-executable';
import {
  compiledSupervisor,
  SUPERVISOR_BUILDS,
  SUPERVISOR_ENV,
  SUPERVISOR_SOURCE,
  supervisorBinaryPath,
} from './supervisor-binary';

/** Which supervisor starts this machine's turns, and why not the compiled one. */
export type SupervisorBuild = { kind: 'compiled'; path: string } | { kind: 'script'; reason: string };

/** The compilers tried, in turn, after $CC. */
const COMPILERS = ['cc', 'gcc', 'clang'];

/**
 * Builds the compiled supervisor once per machine (supervisor-binary.ts says where), with $CC or the first of cc,
 * gcc and clang on PATH, and proves it starts a process and writes its verdict before it is put in place (by a
 * rename: two workers building at once each finish whole). Without a compiler, or where it fails, turns are started
 * by the shell supervisor, and the reason is returned for the worker's log and `the-loop status`.
 */
export async function buildSupervisor(env: NodeJS.ProcessEnv = process.env): Promise<SupervisorBuild> {
  if (env[SUPERVISOR_ENV] === 'shell') return { kind: 'script', reason: `${SUPERVISOR_ENV}=shell` };
  const target = supervisorBinaryPath(env);
  const source = SUPERVISOR_SOURCE;
  if (target === null || source === undefined) {
    return { kind: 'script', reason: 'its source (src/harness/supervisor.c) is not installed' };
  }
  if (isExecutable(target)) return { kind: 'compiled', path: target };
  const compiler = [env.CC, ...COMPILERS]
    .filter((name): name is string => Boolean(name))
    .map((name) => findExecutable(name, env))
    .find((file) => file !== null);
  if (!compiler) return { kind: 'script', reason: 'no C compiler on PATH (cc, gcc or clang; or $CC)' };
  await mkdir(dirname(target), { recursive: true });
  const built = `${target}.${process.pid}.tmp`;
  const scratch = await mkdtemp(join(tmpdir(), 'the-loop-supervisor-'));
  try {
    let compiled: Awaited<ReturnType<typeof compile>> | undefined;
    for (const flags of SUPERVISOR_BUILDS) {
      compiled = await compile(compiler, flags, source, built);
      if (compiled.exitCode === 0) break;
    }
    if (compiled?.exitCode !== 0) {
      const why = compiled?.stderr.trim().split('\n').at(-1) || `exit ${compiled?.exitCode}`;
      return { kind: 'script', reason: `${compiler} could not build src/harness/supervisor.c: ${why}` };
    }
    const exitFile = join(scratch, 'exit.json');
    const probe = await execa(built, [exitFile, '', '', 'true'], { reject: false, stdin: 'ignore' });
    const verdict = await readFile(exitFile, 'utf8').catch(() => '');
    if (probe.exitCode !== 0 || !verdict.startsWith('{"schema_version":2,"code":0,')) {
      return {
        kind: 'script',
        reason: `the supervisor ${compiler} built does not run here (exit ${probe.exitCode})`,
      };
    }
    await rename(built, target);
    return { kind: 'compiled', path: target };
  } finally {
    await rm(built, { force: true });
    await rm(scratch, { recursive: true, force: true });
  }
}

function compile(compiler: string, flags: readonly string[], source: string, output: string) {
  return execa(compiler, [...flags, '-o', output, source], {
    reject: false,
    stdin: 'ignore',
    timeout: 120_000,
  });
}

/** What starts this machine's turns now, without building anything: for `the-loop status`. */
export function supervisorInPlace(): SupervisorBuild {
  const path = compiledSupervisor();
  if (path) return { kind: 'compiled', path };
  const told = process.env[SUPERVISOR_ENV] === 'shell';
  return {
    kind: 'script',
    reason: told
      ? `${SUPERVISOR_ENV}=shell`
      : 'not built on this machine yet: a worker builds it when it starts',
  };
}

/** The line the worker logs at start and `the-loop status` prints. */
export function describeSupervisor(build: SupervisorBuild): string {
  return build.kind === 'compiled'
    ? `supervisor: compiled (${build.path}): a turn execs its harness and nothing else, born in its cgroup`
    : `supervisor: POSIX shell (${build.reason}); each turn costs an exec chain and a cgroup move more (docs/operations.md)`;
}
