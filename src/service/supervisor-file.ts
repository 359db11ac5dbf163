import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../session/atomic';
import { servicePaths } from './service-processes';

/** The parts the supervisor restarts. */
export const SUPERVISED_ROLES = ['server', 'worker', 'webhook', 'board'] as const;
export type SupervisedRole = (typeof SUPERVISED_ROLES)[number];

/** What the supervisor knows of one part: the process it watches, and its exits and restarts so far. */
const supervisedPartSchema = z.object({
  /** The process last seen running; null while it is down. */
  pid: z.number().int().positive().nullable(),
  /** Restarts since the supervisor started. */
  restarts: z.number().int().nonnegative(),
  /** Restarts in a row without a healthy run between them: what the next delay doubles from. */
  consecutive: z.number().int().nonnegative(),
  /** When its last exit was seen, and the pid that exited. */
  exitedAt: z.string().nullable(),
  exitedPid: z.number().int().positive().nullable(),
  lastRestartAt: z.string().nullable(),
  /** Set while it is down and a restart is waiting for its backoff to pass. */
  nextRestartAt: z.string().nullable(),
  /** Why the last restart failed, one line; null once one succeeded. */
  lastError: z.string().nullable(),
});
export type SupervisedPart = z.infer<typeof supervisedPartSchema>;

/** `supervisor.json` in the state directory: written by the supervisor after every change, read by `status`. */
export const supervisorFileSchema = z.object({
  pid: z.number().int().positive(),
  startedAt: z.string(),
  parts: z.partialRecord(z.enum(SUPERVISED_ROLES), supervisedPartSchema),
});
export type SupervisorFile = z.infer<typeof supervisorFileSchema>;

export function writeSupervisorFile(stateDir: string, file: SupervisorFile): void {
  writeFileAtomic(servicePaths(stateDir).supervisorFile, `${JSON.stringify(file, null, 2)}\n`);
}

/** The supervisor's record, or null when there is none or it cannot be read (status then shows no restarts). */
export async function readSupervisorFile(stateDir: string): Promise<SupervisorFile | null> {
  try {
    const parsed = supervisorFileSchema.safeParse(
      JSON.parse(await readFile(servicePaths(stateDir).supervisorFile, 'utf8')),
    );
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
