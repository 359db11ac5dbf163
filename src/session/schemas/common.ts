import { z } from 'zod';

export const isoTimestamp = z.iso.datetime({ offset: true });
export const harnessNames = ['claude', 'cursor', 'codex', 'command'] as const;
export const harnessNameSchema = z.enum(harnessNames);
