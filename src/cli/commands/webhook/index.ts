import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import * as run from './run';

/** What a verb's module exports: it declares its command and flags on the root. */
export interface WebhookVerbModule {
  declareCommand(program: Command<[], GlobalOptions>): void;
}

/** The verb modules: `webhook` is one command, at the root. A new verb is its file and a line here. */
export const webhookVerbs: readonly WebhookVerbModule[] = [run];

/**
 * `the-loop webhook`: the GitHub webhook receiver, in the foreground (`the-loop start` runs it in the background).
 * run.ts declares its flags and a `run(options, io)` that loads the receiver only when it runs.
 */
export function registerWebhookCommands(program: Command<[], GlobalOptions>): void {
  for (const verb of webhookVerbs) verb.declareCommand(program);
}
