import { jsonFileText, readJsonIfExists } from '../session/json-file';
import type { IterationPaths } from '../session/paths';
import { salvageFileSchema, type SalvageFile, type SalvageReport } from '../session/schemas';
import type { Usage } from '../session/schemas/usage';
import type { AttemptLease } from './attempt-lease';
import {
  isLiveProcess,
  reapRun,
  reapStray,
  strayProcesses,
  trackedRuns,
  unrecordedRuns,
  type ReapOptions,
} from './orphans';

/**
 * The history error of an abandoned turn. Plain "abandoned" when no orphan had to be stopped (the earlier
 * attempt's processes were already gone, or none could be tracked); otherwise "abandoned_after_<policy>" where
 * the policy is the strongest signal the reaper needed to settle an orphan: SIGTERM, or SIGKILL after the
 * SIGTERM grace period ran out.
 */
export type AbandonError = 'abandoned' | 'abandoned_after_sigterm' | 'abandoned_after_sigkill';

export interface SalvageOutcome {
  reports: SalvageReport[];
  /** Live processes the reaper could not prove gone; non-zero refuses a replacement dispatch. */
  unsettledWorkers: number;
  error: AbandonError;
  /** salvage.json, when at least one tracked run was processed. */
  file: string | null;
}

const STRENGTH: Record<SalvageReport['action'], number> = { none: 0, sigterm: 1, sigkill: 2 };

function abandonError(reports: SalvageReport[]): AbandonError {
  let strongest = 0;
  for (const r of reports) if (r.settled) strongest = Math.max(strongest, STRENGTH[r.action]);
  return strongest === 2
    ? 'abandoned_after_sigkill'
    : strongest === 1
      ? 'abandoned_after_sigterm'
      : 'abandoned';
}

function readPrevious(file: string): SalvageFile | null {
  try {
    return readJsonIfExists(file, salvageFileSchema);
  } catch {
    return null; // a torn or foreign file is replaced by a fresh report
  }
}

/** salvage.json, written under the attempt's lease (a superseded attempt's read-modify-write must not land). */
async function writeSalvageFile(
  lease: AttemptLease,
  paths: IterationPaths,
  content: SalvageFile,
): Promise<void> {
  await lease.write([
    { file: paths.salvage, data: jsonFileText(paths.salvage, salvageFileSchema, content).text },
  ]);
}

/**
 * Writes salvage.json. A run already reported by an earlier attempt (say the worker that was shut down and
 * SIGTERMed its own harness, or an attempt that was refused while an orphan still ran) keeps the strongest
 * action any attempt took, so the provenance survives repeated salvage passes.
 */
export async function writeSalvage(
  lease: AttemptLease,
  paths: IterationPaths,
  iteration: number,
  routineId: string,
  reports: SalvageReport[],
): Promise<SalvageReport[]> {
  const previous = readPrevious(paths.salvage);
  const same = (a: SalvageReport, b: SalvageReport) =>
    a.pid === b.pid && a.pgid === b.pgid && (a.pid > 0 || a.harness_run_id === b.harness_run_id);
  const merged = reports.map((report) => {
    const before = previous?.reports.find((p) => same(p, report));
    if (!before || STRENGTH[before.action] <= STRENGTH[report.action]) return report;
    return { ...report, action: before.action, detail: `${before.detail}; then: ${report.detail}` };
  });
  for (const before of previous?.reports ?? []) {
    if (merged.some((r) => same(r, before))) continue;
    // Not found again this pass (a stray that has since exited): re-check what the old report left running.
    const stillLive = before.unsettled_workers > 0 && isLiveProcess(before.pid);
    merged.push(
      before.unsettled_workers > 0 && !stillLive
        ? { ...before, settled: true, unsettled_workers: 0, detail: `${before.detail}; gone since` }
        : before,
    );
  }
  await writeSalvageFile(lease, paths, {
    ...(previous ?? {}),
    schema_version: 1,
    iteration,
    routine_id: routineId,
    written_at: new Date().toISOString(),
    reports: merged,
  });
  return merged;
}

/**
 * Crash recovery for an iteration whose earlier attempt started a harness and never wrote result.json: reap
 * every tracked run's process group and cgroup (and, where the host gives no cgroup, any process that escaped the
 * group but still names the iteration), and record what was done in salvage.json. result.json is never written here.
 */
export async function salvageIteration(args: {
  lease: AttemptLease;
  paths: IterationPaths;
  iteration: number;
  routineId: string;
  heartbeatDetails: unknown;
  reap: ReapOptions;
}): Promise<SalvageOutcome> {
  const runs = trackedRuns(args.paths.harnessOutputRoot, args.heartbeatDetails);
  const reports: SalvageReport[] = [];
  for (const run of runs) reports.push(await reapRun(run, args.reap));
  // A run without a record is reported only when its cgroup held something to end.
  for (const run of unrecordedRuns(args.paths.harnessOutputRoot, runs)) {
    const report = await reapRun(run, args.reap);
    if (report.cgroup) reports.push(report);
  }
  const strays = strayProcesses(
    args.paths.dir,
    runs.map((r) => r.pgid),
  );
  for (const stray of strays) reports.push(await reapStray(stray, args.reap));
  if (reports.length === 0) return { reports, unsettledWorkers: 0, error: 'abandoned', file: null };
  const merged = await writeSalvage(args.lease, args.paths, args.iteration, args.routineId, reports);
  const unsettledWorkers = merged.reduce((sum, r) => sum + r.unsettled_workers, 0);
  return { reports: merged, unsettledWorkers, error: abandonError(merged), file: args.paths.salvage };
}

/** Says in salvage.json what became of the turn, and the usage its run reported. */
export async function recordSalvageVerdict(
  lease: AttemptLease,
  paths: IterationPaths,
  iteration: number,
  routineId: string,
  verdict: 'recovered' | 'abandoned',
  usage: Usage | null,
): Promise<void> {
  const previous = readPrevious(paths.salvage);
  await writeSalvageFile(lease, paths, {
    schema_version: 1,
    iteration,
    routine_id: routineId,
    written_at: new Date().toISOString(),
    reports: previous?.reports ?? [],
    verdict,
    usage,
  });
}
