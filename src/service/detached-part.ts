import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CliError } from '../errors';
import { LoadScaledDeadline } from '../process/load-scaled-deadline';
import { pollUntil } from '../process/poll-until';
import { spawnBackground } from '../process/spawn-background';
import { writeFileAtomic } from '../session/atomic';
import type { TemporalTarget } from '../temporal/target';
import { isAlive, stopProcess } from './dev-server';
import { servicePaths } from './service-processes';
import type { ServiceContext } from './service';

/** A part of the service that `start` runs as `node <the-loop> <command>` in the background. */
export interface DetachedPart {
  command: string;
  /** For "could not start …". */
  what: string;
  pidFile: string;
  logFile: string;
  /** Added to this process's environment: how a secret reaches the part, never through its argv. */
  env?: NodeJS.ProcessEnv;
  /** Passed as --ready-file and waited for; without it, the part counts as started once spawned. */
  ready?: {
    file: string;
    startUpOnAnIdleMachineMs: number;
    /** What the error says when the part exits before it is ready, or is not ready in time. */
    exited: string;
    notReady: string;
    /** Stop a part that is not ready in time (else it is left to come up, and the error says so). */
    stopWhenNotReady: boolean;
  };
}

/** The CLI entry point `bin/the-loop.js`. */
function cliEntry(): string {
  return resolve(__dirname, '..', '..', '..', 'bin', 'the-loop.js');
}

/**
 * Starts `part` detached, its pid in its pid file, and waits until it is ready. Its log file is read by machines: it
 * logs JSON, at this process's level. The embedded server's address reaches it as it reaches the CLI, through
 * service.json, so a TEMPORAL_ADDRESS of this process's is not passed on.
 */
export async function startDetachedPart(
  ctx: ServiceContext,
  target: TemporalTarget,
  part: DetachedPart,
): Promise<number> {
  const { ready } = part;
  if (ready) rmSync(ready.file, { force: true });
  mkdirSync(dirname(part.logFile), { recursive: true });
  const args = [cliEntry(), part.command];
  if (ready) args.push('--ready-file', ready.file);
  if (ctx.configPath) args.push('--config', ctx.configPath);
  args.push('--log-format', 'json', '--log-level', ctx.logger.level);
  const env: NodeJS.ProcessEnv = { ...process.env, THE_LOOP_STATE_DIR: ctx.stateDir, ...part.env };
  if (target.source === 'embedded') delete env.TEMPORAL_ADDRESS;
  let pid: number;
  try {
    pid = spawnBackground(process.execPath, args, { logFile: part.logFile, env, detached: true });
  } catch (error) {
    throw new CliError(`could not start ${part.what}: ${(error as Error).message}`);
  }
  writeFileAtomic(part.pidFile, `${pid}\n`);
  if (!ready) return pid;
  const deadline = new LoadScaledDeadline(ready.startUpOnAnIdleMachineMs);
  const isReady = await pollUntil(
    () => {
      if (existsSync(ready.file)) return true;
      if (isAlive(pid)) return false;
      rmSync(part.pidFile, { force: true });
      throw new CliError(`${ready.exited} — see ${part.logFile}`);
    },
    { timeoutMs: deadline, intervalMs: 200 },
  );
  if (isReady) return pid;
  if (ready.stopWhenNotReady) {
    await stopProcess(pid, 5000);
    rmSync(part.pidFile, { force: true });
  }
  throw new CliError(`${ready.notReady} within ${deadline.describe()} — see ${part.logFile}`);
}

/** The parts that write a ready file: each runs as `the-loop <role>`, its files named after it (servicePaths). */
type ReadyRole = 'worker' | 'webhook' | 'board';

/** What one part with a ready file differs in from the others. */
export interface ReadyPart {
  what: string;
  env?: NodeJS.ProcessEnv;
  ready: Omit<NonNullable<DetachedPart['ready']>, 'file'>;
}

/** Starts `the-loop <role>` detached with its role's pid, log and ready files, and waits until it is ready. */
export function startReadyPart(
  ctx: ServiceContext,
  target: TemporalTarget,
  role: ReadyRole,
  part: ReadyPart,
): Promise<number> {
  const paths = servicePaths(ctx.stateDir);
  return startDetachedPart(ctx, target, {
    command: role,
    what: part.what,
    pidFile: paths[`${role}Pid`],
    logFile: paths[`${role}Log`],
    ...(part.env ? { env: part.env } : {}),
    ready: { ...part.ready, file: paths[`${role}Ready`] },
  });
}

/** The URL a part wrote into its ready file, or null. */
export function readyUrl(file: string): string | null {
  try {
    const ready = JSON.parse(readFileSync(file, 'utf8')) as { url?: unknown };
    return typeof ready.url === 'string' ? ready.url : null;
  } catch {
    return null;
  }
}
