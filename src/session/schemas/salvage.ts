import { z } from 'zod';

import { usageSchema } from './usage';

import { isoTimestamp } from './common';

/** What cgroup.kill did to a run's cgroup v2 (absent where the host gave the run none). */
export const cgroupKillSchema = z.object({
  path: z.string().min(1),
  /** The directory was there (its supervisor had joined it). */
  found: z.boolean(),
  /** Processes that cgroup.kill ended: those that had left the process group (setsid, double fork, env -i). */
  killed: z.number().int().nonnegative(),
  settled: z.boolean(),
  removed: z.boolean(),
});

export const salvageReportSchema = z.object({
  harness_run_id: z.string().nullable(),
  pid: z.number().int(),
  pgid: z.number().int(),
  action: z.enum(['none', 'sigterm', 'sigkill']),
  settled: z.boolean(),
  /** Processes of the group still alive after the reaper gave up; non-zero blocks a replacement dispatch. */
  unsettled_workers: z.number().int().nonnegative(),
  detail: z.string(),
  cgroup: cgroupKillSchema.nullable().optional(),
});

/** salvage.json: what crash recovery did to an interrupted iteration's processes. */
export const salvageFileSchema = z.object({
  schema_version: z.literal(1),
  iteration: z.number().int().positive(),
  routine_id: z.string().min(1),
  written_at: isoTimestamp,
  reports: z.array(salvageReportSchema),
  /**
   * What became of the turn: `recovered` when its harness had finished (exit.json) and its output was read into
   * result.json, `abandoned` otherwise. Absent in files written before recovery read what a run left.
   */
  verdict: z.enum(['recovered', 'abandoned']).optional(),
  /** The usage the run reported (counted in the budget either way), or null when it reported none. */
  usage: usageSchema.nullable().optional(),
});

export type SalvageReport = z.infer<typeof salvageReportSchema>;
export type SalvageFile = z.infer<typeof salvageFileSchema>;
