import { z } from 'zod';

import { isoTimestamp } from './common';

/** eval_results/<run_id>/report.json as the built-in runner writes it (the shape eval-banana's reports take). */
export const evalCheckResultSchema = z.object({
  id: z.string().min(1),
  file: z.string().min(1),
  kind: z.enum(['executable', 'shell-script', 'shell-command']),
  passed: z.boolean(),
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  timed_out: z.boolean(),
  duration_ms: z.number().nonnegative(),
  /** Relative to the run directory: checks/<id>/stdout.txt and stderr.txt. */
  stdout_file: z.string(),
  stderr_file: z.string(),
});

export const evalReportSchema = z.object({
  schema_version: z.literal(1),
  runner: z.literal('the-loop builtin'),
  run_id: z.string().min(1),
  started_at: isoTimestamp,
  finished_at: isoTimestamp,
  cwd: z.string(),
  check_dir: z.string(),
  total: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  checks: z.array(evalCheckResultSchema),
});

export type EvalCheckResult = z.infer<typeof evalCheckResultSchema>;
export type EvalReport = z.infer<typeof evalReportSchema>;
