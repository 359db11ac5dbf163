import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import type { SessionsContext } from '../../../sessions/context';
import { processIo, type Io } from '../../io';

/** The options declared once on `sessions`, seen by every verb. */
export type SessionsOptions = GlobalOptions & { registryDir?: string; portableDir?: string };

export type SessionsCommand = Command<[], SessionsOptions, GlobalOptions>;

/** The config (loaded once per command) and the storage overrides, as the use cases take them. */
export async function sessionsContext(options: SessionsOptions): Promise<SessionsContext> {
  const { createContext } = await import('../../../service/context.js');
  const ctx = createContext({ config: options.config });
  return {
    config: ctx.config,
    stateDir: ctx.stateDir,
    registryDir: options.registryDir ?? null,
    portableDir: options.portableDir ?? null,
  };
}

/** Runs a verb with the process's streams; its exit code becomes the process's. */
export async function runWithProcessIo<O>(
  run: (options: O, io: Io) => Promise<number>,
  options: O,
): Promise<void> {
  process.exitCode = await run(options, processIo);
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
