import { Option, type Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import type { SessionsContext } from '../../../use-cases/context';
import { removedStorageOption } from '../../removed-storage-options';

/** The options every verb sees: the global ones. */
export type SessionsOptions = GlobalOptions;

export type SessionsCommand = Command<[], SessionsOptions, GlobalOptions>;

/** `sessions` itself, with no verb yet: index.ts declares every verb on it, the start-up snapshot `list` alone. */
export function sessionsCommand(program: Command<[], GlobalOptions>): SessionsCommand {
  const sessions = program
    .command('sessions')
    .description('the work-item ↔ harness-session registry, execution control, reset and restart')
    .configureHelp({ showGlobalOptions: true });
  // hidden: they only tell an old script where the storage setting went
  sessions.addOption(removedStorageOption('--registry-dir'));
  sessions.addOption(removedStorageOption('--portable-dir'));
  return sessions;
}

/** The config (loaded once per command) and the state directory, as the use cases take them. */
export async function sessionsContext(options: SessionsOptions): Promise<SessionsContext> {
  const { createContext } = await import('../../../service/context.js');
  const ctx = createContext({ config: options.config });
  return { config: ctx.config, stateDir: ctx.stateDir };
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--work-item <ref>` (repeatable) or `--all`, never both: how reset and restart pick what they act on. */
export function workItemSelection(eachWhat: string, allWhat: string) {
  return {
    workItem: new Option('--work-item <ref>', eachWhat)
      .argParser(collect)
      .default([] as string[])
      .conflicts('all'),
    all: new Option('--all', allWhat).conflicts('workItem'),
  };
}
