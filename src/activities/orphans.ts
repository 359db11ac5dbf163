import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { isProcessGroupAlive, liveProcessGroupMembers, procStatFields } from '../harness/process-group';
import { isErrno } from '../errors';
import { terminate, type SignalResult } from '../process/terminate';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import type { SalvageReport } from '../session/schemas';
import { reapRunCgroups } from './run-cgroups';

/**
 * harness_outputs/<NNNN>_<routine>/<runId>/process.json: who ran the harness, written the moment it spawned,
 * so that a later attempt (on a new worker after a crash) can find and reap what the dead attempt left behind.
 */
export const processRecordSchema = z.object({
  pid: z.number().int().positive(),
  pgid: z.number().int().positive(),
  runId: z.string().min(1),
  attempt: z.number().int().positive(),
  host: z.string().min(1),
  /** /proc/<pid>/stat starttime (clock ticks since boot): tells our leader from an unrelated process reusing its pid. */
  start_ticks: z.number().int().nonnegative().nullable().optional(),
  /**
   * The run's cgroup v2 directory, which its supervisor joined before starting the harness: cgroup.kill there ends
   * whatever left the process group. null (or absent, in older files) where the host gave the run none.
   */
  cgroup: z.string().min(1).nullable().optional(),
  /**
   * The worker process whose attempt spawned the run, with its /proc starttime. While it lives, the run is not an
   * orphan: a later attempt waits for it to end instead of reaping it (see live-runs.ts). Absent in older files.
   */
  worker: z
    .object({ pid: z.number().int().positive(), start_ticks: z.number().int().nonnegative() })
    .optional(),
});
export type ProcessRecord = z.infer<typeof processRecordSchema>;

export const PROCESS_RECORD = 'process.json';

/** A harness run that an earlier attempt started: from its process.json and/or its last heartbeat. */
export interface TrackedRun {
  runId: string | null;
  pid: number;
  pgid: number;
  host: string | null;
  startTicks: number | null;
  /** Its directory under harness_outputs/<NNNN>_<routine>/ (its cgroup's name derives from it). */
  outputDir: string;
  /** The cgroup its process.json or heartbeat recorded. */
  cgroup: string | null;
  /** The worker process that spawned it, when its process.json says. */
  worker: ProcessRecord['worker'] | null;
}

export interface ReapOptions {
  hostId: string;
  /** Between SIGTERM and SIGKILL. */
  graceMs: number;
  /** How long to wait for the group to vanish after SIGKILL before calling it unsettled. */
  killWaitMs?: number;
  /**
   * Test-only: behave as if signalling the orphan failed with EPERM (a process we may not signal), so that it
   * cannot be proven gone. The liveness check itself stays the real one.
   */
  cannotSignal?: boolean;
}

/** Field 22 of /proc/<pid>/stat; null when the process is gone or /proc is unavailable. */
export function processStartTicks(pid: number): number | null {
  const fields = procStatFields(pid);
  if (!fields) return null;
  const ticks = Number(fields[19]);
  return Number.isInteger(ticks) ? ticks : null;
}

export function writeProcessRecord(outputDir: string, record: ProcessRecord): void {
  // Read back after the worker dies, not after the machine does: the page cache is enough.
  writeJsonAtomic(join(outputDir, PROCESS_RECORD), processRecordSchema, record, { fsync: false });
}

/** Every run recorded under harness_outputs/<NNNN>_<routine>/, plus the previous attempt's heartbeat details. */
export function trackedRuns(harnessOutputRoot: string, heartbeat: unknown): TrackedRun[] {
  const runs = new Map<string, TrackedRun>();
  let entries: string[] = [];
  try {
    entries = readdirSync(harnessOutputRoot).sort();
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
  for (const entry of entries) {
    let record: ProcessRecord | null;
    try {
      record = readJsonIfExists(join(harnessOutputRoot, entry, PROCESS_RECORD), processRecordSchema);
    } catch {
      record = null; // unreadable: the heartbeat may still name the run
    }
    if (!record) continue;
    runs.set(record.runId, {
      runId: record.runId,
      pid: record.pid,
      pgid: record.pgid,
      host: record.host,
      startTicks: record.start_ticks ?? null,
      outputDir: join(harnessOutputRoot, entry),
      cgroup: record.cgroup ?? null,
      worker: record.worker ?? null,
    });
  }
  const hb = heartbeatDetailsSchema.safeParse(heartbeat);
  if (hb.success && hb.data.pid !== undefined && hb.data.pgid !== undefined && !runs.has(hb.data.runId)) {
    runs.set(hb.data.runId, {
      runId: hb.data.runId,
      pid: hb.data.pid,
      pgid: hb.data.pgid,
      host: null,
      startTicks: null,
      outputDir: join(harnessOutputRoot, hb.data.runId),
      cgroup: hb.data.cgroup ?? null,
      worker: null,
    });
  }
  return [...runs.values()];
}

/**
 * Runs of the iteration that neither a process.json nor the heartbeat names (the worker died between the spawn and
 * the record): known by their directory alone, which is enough to name their cgroup. No process group is known.
 */
export function unrecordedRuns(harnessOutputRoot: string, tracked: TrackedRun[]): TrackedRun[] {
  let entries: string[] = [];
  try {
    entries = readdirSync(harnessOutputRoot).sort();
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
  const known = new Set(tracked.map((run) => run.runId));
  return entries
    .filter((entry) => !known.has(entry))
    .map((entry) => ({
      runId: entry,
      pid: 0,
      pgid: 0,
      host: null,
      startTicks: null,
      outputDir: join(harnessOutputRoot, entry),
      cgroup: null,
      worker: null,
    }));
}

/** What runIteration heartbeats: {runId} before the harness spawned, {runId, pid, pgid, cgroup} after. */
export const heartbeatDetailsSchema = z.object({
  runId: z.string().min(1),
  pid: z.number().int().positive().optional(),
  pgid: z.number().int().positive().optional(),
  cgroup: z.string().min(1).nullable().optional(),
});

/** Signals as process.kill does, except where a test stands in for a process we may not signal. */
function sender(opts: ReapOptions): ((target: number, signal: NodeJS.Signals) => SignalResult) | undefined {
  return opts.cannotSignal ? () => 'denied' : undefined;
}

/** Live (non-zombie) members of a group; where /proc is missing, a live group counts as one unknown member. */
function liveMembers(pgid: number): number[] {
  const live = liveProcessGroupMembers(pgid);
  if (live !== null) return live;
  return isProcessGroupAlive(pgid) ? [pgid] : [];
}

/**
 * Reaps one tracked run: its process group (SIGTERM, then SIGKILL after the grace period), then its cgroup, where it
 * has one: cgroup.kill for whatever left the group, and rmdir. `settled` is true only when no live process of either
 * is left (zombies do not count: they can do no work); `action` is what the group needed.
 */
export async function reapRun(run: TrackedRun, opts: ReapOptions): Promise<SalvageReport> {
  const report = await reapGroup(run, opts);
  const contained = await reapRunCgroups(run, opts);
  if (contained.notes.length === 0) return report;
  const left = new Set([...(run.pgid > 1 ? liveMembers(run.pgid) : []), ...contained.left]);
  return {
    ...report,
    settled: left.size === 0 && (report.settled || run.pgid <= 1),
    unsettled_workers: left.size,
    detail: `${report.detail}; ${contained.notes.join('; ')}`,
    cgroup: contained.kill,
  };
}

/** The group part of reapRun. */
async function reapGroup(run: TrackedRun, opts: ReapOptions): Promise<SalvageReport> {
  const base = { harness_run_id: run.runId, pid: run.pid, pgid: run.pgid };
  if (run.host !== null && run.host !== opts.hostId) {
    return {
      ...base,
      action: 'none',
      settled: false,
      unsettled_workers: 0,
      detail: `recorded on host ${run.host}, not reachable from ${opts.hostId}: abandoned without local proof`,
    };
  }
  if (run.pgid <= 1) {
    return {
      ...base,
      action: 'none',
      settled: false,
      unsettled_workers: 0,
      detail: 'no usable process group',
    };
  }
  if (run.startTicks !== null) {
    const now = processStartTicks(run.pid);
    if (now !== null && now !== run.startTicks && liveMembers(run.pgid).length === 0) {
      return {
        ...base,
        action: 'none',
        settled: true,
        unsettled_workers: 0,
        detail: 'pid reused by an unrelated process; the run’s process group is gone',
      };
    }
  }
  if (liveMembers(run.pgid).length === 0) {
    return {
      ...base,
      action: 'none',
      settled: true,
      unsettled_workers: 0,
      detail: 'process group already gone',
    };
  }

  const send = sender(opts);
  const { action, settled, denied } = await terminate(
    { group: run.pgid },
    {
      graceMs: opts.graceMs,
      killWaitMs: opts.killWaitMs ?? 2000,
      isRunning: () => liveMembers(run.pgid).length > 0,
      ...(send ? { send } : {}),
    },
  );
  const notes = denied.map((signal) => `${signal} refused (EPERM)`);
  const left = liveMembers(run.pgid);
  const what =
    action === 'none'
      ? 'not signalled'
      : action === 'sigterm'
        ? `exited after SIGTERM`
        : `SIGKILL after ${opts.graceMs} ms of SIGTERM`;
  return {
    ...base,
    action,
    settled,
    unsettled_workers: left.length,
    detail: settled
      ? `${what}; the process group is gone`
      : `${[what, ...notes].join('; ')}; still running: ${left.join(', ')}`,
  };
}

/**
 * Processes that escaped their run's process group (setsid, double fork) but still carry the iteration's
 * LOOPY_ITERATION_DIR in their environment. Skips this process and zombies.
 */
export interface StrayProcess {
  pid: number;
  pgid: number;
  runId: string | null;
}

export function strayProcesses(iterationDir: string, knownPgids: number[]): StrayProcess[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const strays: StrayProcess[] = [];
  const marker = `LOOPY_ITERATION_DIR=${iterationDir}`;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue;
    }
    const vars = environ.split('\0');
    if (!vars.includes(marker)) continue;
    const fields = procStatFields(entry);
    if (!fields || fields[0] === 'Z' || knownPgids.includes(Number(fields[2]))) continue;
    const out = vars.find((v) => v.startsWith('LOOPY_HARNESS_OUTPUT_DIR='));
    strays.push({
      pid,
      pgid: Number(fields[2]),
      runId: out ? basename(out.slice('LOOPY_HARNESS_OUTPUT_DIR='.length)) : null,
    });
  }
  return strays;
}

/** The process exists and is not a zombie. */
export function isLiveProcess(pid: number): boolean {
  const fields = procStatFields(pid);
  return fields !== null && fields[0] !== 'Z';
}

/** Reaps one process that left its group: SIGTERM, SIGKILL after the grace period. */
export async function reapStray(stray: StrayProcess, opts: ReapOptions): Promise<SalvageReport> {
  const start = processStartTicks(stray.pid);
  const same = () => processStartTicks(stray.pid) === start;
  const gone = () => !isLiveProcess(stray.pid) || !same();
  const send = sender(opts);
  const { action, settled } = await terminate(
    { pid: stray.pid },
    {
      graceMs: opts.graceMs,
      killWaitMs: opts.killWaitMs ?? 2000,
      isRunning: () => !gone(),
      ...(send ? { send } : {}),
    },
  );
  return {
    harness_run_id: stray.runId,
    pid: stray.pid,
    pgid: stray.pgid,
    action,
    settled,
    unsettled_workers: settled ? 0 : 1,
    detail: `escaped its run’s process group (found by LOOPY_ITERATION_DIR); ${settled ? 'gone' : 'still running'}`,
  };
}
