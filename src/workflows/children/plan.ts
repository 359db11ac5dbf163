// Pure, deterministic rules for child sessions: which request files are new work, what limits a child gets,
// how its end maps onto a children.json status. Runs inside workflow code: `import type` only.
import type { ChildRequest } from '../../session/schemas/child-request';
import type { ChildRecord, ChildStatus } from '../../session/schemas/children';
import type { StopKind } from '../../session/schemas/state';
import type { Routine } from '../../session/routine-schedule';

/** One file of child_requests/ as the scan saw it (the scan validates; the workflow decides). */
export interface ChildRequestScan {
  /** File name inside child_requests/ (only `*.json` files are requests). */
  file: string;
  /** `<inode>-<size>-<mtime ms>`: a rewritten or re-created file gets a new one. */
  fingerprint: string;
  /** The file's mtime (ISO): when the request was made. */
  modifiedAt: string;
  request: ChildRequest | null;
  /** goalHash(request.goal): computed by the scan because workflow code has no sha256. */
  goalHash: string | null;
  /** The request's `workflows` file, loaded and validated; null = the parent's routines. */
  routines: Routine[] | null;
  routinesFile: string | null;
  /** Why the request cannot be dispatched; set exactly when `request` is null. */
  error: string | null;
}

/** A child holds its request file name while it is being started or runs. */
export const BUSY_CHILD_STATUSES: readonly ChildStatus[] = ['dispatching', 'running'];

/**
 * Request files that are new work, in file-name order. A file is new when no record of its name has its
 * fingerprint (so a request that was handled stays handled, and a request file re-created or modified after
 * its child was dispatched is new work), and it waits while a record of its name is dispatching or running.
 */
export function selectPendingRequests(
  records: readonly Pick<ChildRecord, 'request_file' | 'status' | 'request_fingerprint'>[],
  scans: readonly ChildRequestScan[],
): ChildRequestScan[] {
  const seen = new Set<string>();
  const out: ChildRequestScan[] = [];
  for (const scan of [...scans].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
    if (seen.has(scan.file)) continue;
    const same = records.filter((r) => r.request_file === scan.file);
    if (same.some((r) => r.request_fingerprint === scan.fingerprint)) continue;
    if (same.some((r) => BUSY_CHILD_STATUSES.includes(r.status))) continue;
    seen.add(scan.file);
    out.push(scan);
  }
  return out;
}

export interface ParentBudgetView {
  limits: { maxIterations: number | null; maxCostUsd: number | null; maxDurationMs: number | null };
  spentUsd: number;
  elapsedMs: number;
}

export type ChildLimitsDecision =
  | {
      ok: true;
      maxIterations: number | null;
      maxCostUsd: number | null;
      maxDurationMs: number | null;
      /** The request asked for more than the parent had left. */
      capped: boolean;
    }
  | { ok: false; reason: string };

/** Below this a budget counts as spent (float sums of cents do not land exactly on the limit). */
export const BUDGET_EPSILON_USD = 1e-9;

/**
 * A child's limits: its own max_iterations (else the parent's), max_cost_usd capped at what the parent has left
 * (the whole subtree is charged to the parent, so a child can never spend more), and the parent's remaining time.
 */
export function childLimits(request: ChildRequest, parent: ParentBudgetView): ChildLimitsDecision {
  const { limits } = parent;
  const leftUsd = limits.maxCostUsd === null ? null : limits.maxCostUsd - parent.spentUsd;
  if (leftUsd !== null && leftUsd <= BUDGET_EPSILON_USD) {
    return {
      ok: false,
      reason: `the parent's budget is spent ($${parent.spentUsd.toFixed(2)} of $${(limits.maxCostUsd ?? 0).toFixed(2)})`,
    };
  }
  const leftMs = limits.maxDurationMs === null ? null : limits.maxDurationMs - parent.elapsedMs;
  if (leftMs !== null && leftMs <= 0) return { ok: false, reason: "the parent's max duration is reached" };
  const asked = request.max_cost_usd ?? null;
  const maxCostUsd = leftUsd === null ? asked : asked === null ? leftUsd : Math.min(asked, leftUsd);
  return {
    ok: true,
    maxIterations: request.max_iterations ?? limits.maxIterations,
    maxCostUsd,
    maxDurationMs: leftMs,
    capped: asked !== null && leftUsd !== null && asked > leftUsd,
  };
}

/** `kind: reason`, without repeating the kind when the reason already starts with it ("budget: spent …"). */
export function describeStop(kind: string | null, reason: string | null): string {
  if (!reason) return kind ?? 'stopped';
  if (!kind || reason.toLowerCase().startsWith(kind.replace(/_/g, ' '))) return reason;
  return `${kind}: ${reason}`;
}

/** What children.json says about a child that ended with this stop kind. */
export function childStatusForStop(kind: StopKind): ChildStatus {
  if (kind === 'user' || kind === 'parent') return 'stopped';
  if (kind === 'error' || kind === 'consecutive_failures') return 'failed';
  return 'complete';
}

/** The layout doc's session id, `<YYYYMMDD>_<HHMMSS>_<goal_hash>_<random>`, from a workflow's clock and uuid. */
export function childSessionId(goalHash: string, nowIso: string, random: string): string {
  const date = nowIso.slice(0, 10).replace(/-/g, '');
  const time = nowIso.slice(11, 19).replace(/:/g, '');
  const suffix = random.replace(/[^0-9a-f]/g, '').slice(0, 8);
  return `${date}_${time}_${goalHash}_${suffix}`;
}

export { addUsage as sumUsage } from '../../session/usage-math';
