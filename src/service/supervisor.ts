import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorLine } from '../errors';
import { readPidFile } from './process-facts';
import { liveServiceProcess, servicePaths } from './service-processes';
import { startService, type ServiceContext, type StartResult } from './service';
import { observePart, restartDue, restarted, restartFailed } from './supervised-part';
import {
  SUPERVISED_ROLES,
  writeSupervisorFile,
  type SupervisedRole,
  type SupervisorFile,
} from './supervisor-file';

/** How often the supervisor looks: a pid file read and a /proc look per part, so a crash is seen within a second. */
const LOOK_EVERY_MS = 1_000;

type AfterStart = Partial<Record<SupervisedRole, { pid: number; started: boolean } | { problem: string }>>;

/**
 * Each part's process after a start, and whether that start brought it up; a board that could not start is its
 * problem (the rest of the start went on without it).
 */
function partsAfterStart(result: StartResult): AfterStart {
  const { board } = result;
  return {
    ...(result.server ? { server: result.server } : {}),
    worker: result.worker,
    ...(result.webhook ? { webhook: result.webhook } : {}),
    ...(board ? { board: 'problem' in board ? board : { pid: board.pid, started: board.started } } : {}),
  };
}

/**
 * `the-loop supervise`, started by `the-loop start`: watches the server, the worker, the webhook receiver and the
 * board, and
 * restarts one that exits, after a backoff (restart-backoff.ts), through `startService` itself, under the service
 * lock, so a restart and a person's `start` or `stop` never race. It records what it saw in supervisor.json, which
 * `status` shows. `stop` stops it first, so nothing it stops comes back. It ends by itself when its state
 * directory is removed, or when another supervisor took over its pid file.
 */
export async function runSupervisor(ctx: ServiceContext, lookEveryMs = LOOK_EVERY_MS): Promise<void> {
  const paths = servicePaths(ctx.stateDir);
  const record: SupervisorFile = { pid: process.pid, startedAt: new Date().toISOString(), parts: {} };
  writeSupervisorFile(ctx.stateDir, record);
  ctx.logger.info(`supervising ${ctx.stateDir}`);
  for (;;) {
    if (!existsSync(ctx.stateDir)) return ctx.logger.info(`${ctx.stateDir} is gone: the supervisor ends`);
    const owner = await readPidFile(paths.supervisorPid);
    if (owner !== null && owner !== process.pid)
      return ctx.logger.info(`supervisor ${owner} took over: this one ends`);
    if (await look(ctx, record)) writeSupervisorFile(ctx.stateDir, record);
    await sleep(lookEveryMs);
  }
}

/** One look at every part, and a restart when one is due; true when the record changed. */
async function look(ctx: ServiceContext, record: SupervisorFile): Promise<boolean> {
  let changed = false;
  const now = Date.now();
  const found = await Promise.all(SUPERVISED_ROLES.map((role) => liveServiceProcess(ctx.stateDir, role)));
  // `dev` runs the server, worker and receiver in a terminal: the person who ends it means it, so none is watched
  const inATerminal = found.some((running) => running?.command === 'dev');
  for (const [index, role] of SUPERVISED_ROLES.entries()) {
    const running = inATerminal ? null : found[index]!;
    if (inATerminal && record.parts[role] !== undefined) {
      delete record.parts[role];
      changed = true;
      continue;
    }
    const { part, change } = observePart(record.parts[role], running, now);
    if (part === undefined) delete record.parts[role];
    else record.parts[role] = part;
    if (change === null) continue;
    changed = true;
    if (change.kind === 'exited') {
      ctx.logger.warn(
        `the ${role} (pid ${change.pid}) exited: restarting it in ${change.restartInMs / 1000} s` +
          (change.consecutive > 0 ? ` (${change.consecutive + 1} restarts in a row)` : ''),
      );
    } else if (change.kind === 'back') {
      ctx.logger.info(`the ${role} is back (pid ${change.pid}), started by someone else`);
    }
  }
  const due = SUPERVISED_ROLES.filter((role) => restartDue(record.parts[role], now));
  if (due.length === 0) return changed;
  try {
    const after = partsAfterStart(await startService(ctx));
    const at = Date.now();
    for (const role of due) {
      const now = after[role];
      const part = record.parts[role]!;
      if (now === undefined) {
        // no longer part of the service (its configuration changed): no longer watched
        delete record.parts[role];
      } else if ('problem' in now) {
        record.parts[role] = restartFailed(part, now.problem, at);
        ctx.logger.error(`could not restart the ${role}: ${now.problem}`);
      } else if (now.started) {
        record.parts[role] = restarted(part, now.pid, at);
        ctx.logger.info(`restarted the ${role} (pid ${now.pid}, restart ${part.restarts + 1})`);
      } else {
        record.parts[role] = { ...part, pid: now.pid, nextRestartAt: null, lastError: null };
        ctx.logger.info(`the ${role} is back (pid ${now.pid}), started by someone else`);
      }
    }
  } catch (error) {
    const at = Date.now();
    for (const role of due) {
      record.parts[role] = restartFailed(record.parts[role]!, errorLine(error), at);
      ctx.logger.error(`could not restart the ${role}: ${errorLine(error)}`);
    }
  }
  return true;
}
