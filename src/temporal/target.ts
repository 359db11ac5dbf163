import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { z } from 'zod';
import type { TheLoopConfig } from '../config/schema';

/** Which Temporal the CLI and the worker talk to, and why. */
export interface TemporalTarget {
  connectionOptions: NativeConnectionOptions;
  address: string;
  namespace: string;
  /** 'embedded' means the dev server `the-loop start` runs from the state directory. */
  source: 'environment' | 'config' | 'embedded';
}

export const serviceFileSchema = z.object({
  address: z.string(),
  namespace: z.string(),
  uiAddress: z.string().nullable(),
  server: z
    .object({ pid: z.number().int(), dbFile: z.string(), logFile: z.string(), cliPath: z.string() })
    .nullable(),
  worker: z
    .object({ pid: z.number().int(), logFile: z.string(), taskQueue: z.string(), hostQueue: z.string() })
    .nullable(),
  startedAt: z.string(),
});
export type ServiceFile = z.infer<typeof serviceFileSchema>;

export function serviceFilePath(stateDir: string): string {
  return join(stateDir, 'service.json');
}

export function readServiceFile(stateDir: string): ServiceFile | null {
  const path = serviceFilePath(stateDir);
  if (!existsSync(path)) return null;
  const parsed = serviceFileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  return parsed.success ? parsed.data : null;
}

/** Where envconfig looks for temporal.toml when TEMPORAL_CONFIG_FILE does not say (on Linux; elsewhere: unknown). */
function defaultTomlFile(): string | null {
  if (process.platform !== 'linux') return null;
  const base =
    process.env.XDG_CONFIG_HOME || (process.env.HOME ? join(process.env.HOME, '.config') : undefined);
  return base ? join(base, 'temporalio', 'temporal.toml') : null;
}

/**
 * Whether anything envconfig reads is there: a profile asked for, a TEMPORAL_* variable, or a temporal.toml. When
 * nothing is, envconfig has nothing to say, and not loading it spares every command about 100 ms.
 */
function envConfigMayApply(config: TheLoopConfig): boolean {
  if (config.temporal.profile) return true;
  if (Object.keys(process.env).some((name) => name.startsWith('TEMPORAL_'))) return true;
  const toml = defaultTomlFile();
  return toml === null || existsSync(toml);
}

/** TEMPORAL_* variables and temporal.toml profiles first, then the-loop.yaml, then the embedded dev server. */
export function resolveTarget(config: TheLoopConfig, stateDir: string): TemporalTarget {
  const fromEnv = envConfigMayApply(config)
    ? // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it applies, see above
      (require('@temporalio/envconfig') as typeof import('@temporalio/envconfig')).loadClientConnectConfig(
        config.temporal.profile ? { profile: config.temporal.profile } : {},
      )
    : { connectionOptions: {} as NativeConnectionOptions, namespace: undefined };
  const namespace = fromEnv.namespace ?? config.temporal.namespace ?? 'default';
  if (fromEnv.connectionOptions.address) {
    return {
      connectionOptions: fromEnv.connectionOptions,
      address: fromEnv.connectionOptions.address,
      namespace,
      source: 'environment',
    };
  }
  if (config.temporal.address) {
    return {
      connectionOptions: { ...fromEnv.connectionOptions, address: config.temporal.address },
      address: config.temporal.address,
      namespace,
      source: 'config',
    };
  }
  const { ip, port } = config.temporal.devServer;
  const address = readServiceFile(stateDir)?.address ?? `${ip}:${port}`;
  return { connectionOptions: { address }, address, namespace, source: 'embedded' };
}
