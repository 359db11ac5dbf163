import { z } from 'zod';

import { isoTimestamp } from './common';

/**
 * harness_outputs/<NNNN>_<routine>/<runId>/exit.json: the harness's verdict, written by its supervisor (a shell that
 * outlives the worker and the launcher) the moment the harness ends. Absent: the run never finished, or its
 * supervisor was killed with it. Exactly one of code and signal is set.
 * The record is followed by blanks up to the size reserved before the harness started (EXIT_FILE_RESERVED_BYTES in
 * supervisor.ts), so that a disk filled meanwhile cannot fail its write: JSON whitespace, which JSON.parse skips.
 */
export const harnessExitFileSchema = z.object({
  schema_version: z.literal(1),
  code: z.number().int().nullable(),
  signal: z.string().nullable(),
  ended_at: isoTimestamp,
});

export type HarnessExitFile = z.infer<typeof harnessExitFileSchema>;
