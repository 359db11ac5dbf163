import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import * as raise from './raise';
import * as show from './show';

/** What a verb's module exports: it declares its command and flags on `budget`. */
export interface BudgetVerbModule {
  declareCommand(budget: Command<[], GlobalOptions>): void;
}

/**
 * The verb modules, one file each under this folder, in the order `--help` lists them: show, the default, first.
 * A new verb is its file and a line here (and its import above).
 */
export const budgetVerbs: readonly BudgetVerbModule[] = [show, raise];

/**
 * `the-loop budget`: `show` (the default: what was spent, and the budgets in force) and `raise`. Each verb's module
 * exports `declareCommand`, which declares its flags and a `run(options, io)` that loads what it reads only when it
 * runs.
 */
export function registerBudgetCommand(program: Command<[], GlobalOptions>): void {
  const budget = program
    .command('budget')
    .description('what was spent and the budgets in force (show, the default), and raising a budget (raise)')
    .configureHelp({ showGlobalOptions: true });
  for (const verb of budgetVerbs) verb.declareCommand(budget);
}
