import { z } from 'zod';

import { isoTimestamp } from './common';

/**
 * harness_outputs/<NNNN>_<routine>/<runId>/exit.json: the harness's verdict, written by its supervisor (a shell that
 * outlives the worker and the launcher) the moment the harness ends; the file's modification time is that moment.
 * The supervisor creates it as blanks before the harness starts (EXIT_FILE_RESERVED_BYTES in supervisor.ts, so that a
 * disk filled meanwhile cannot fail the verdict's write) and writes the record over their start: blanks, part of a
 * record or no file mean the run never finished, or its supervisor was killed with it. Exactly one of code and
 * signal is set. The blanks after the record are JSON whitespace, which JSON.parse skips.
 */
export const harnessExitFileSchema = z.object({
  schema_version: z.union([z.literal(1), z.literal(2)]),
  code: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Version 1 only (its supervisor ran `date`); a version 2 file's end is its modification time. */
  ended_at: isoTimestamp.optional(),
});

export type HarnessExitFile = z.infer<typeof harnessExitFileSchema>;
