import { registerEvalCommands } from './commands/eval/index';
import { registerBudgetCommand } from './commands/budget/index';
import { registerInboxCommand } from './commands/inbox/index';
import { registerLoopyCommands } from './commands/loopy/index';
import { registerServiceCommands } from './commands/service/index';
import { registerSessionsCommands } from './commands/sessions/index';
import { registerWebhookCommands } from './commands/webhook/index';
import { registerBoardCommand } from './commands/board/index';
import { registerPrCommands } from './commands/pr/index';
import { registerItemCommands } from './commands/item/index';
import { invokedAs, rootProgram, runProgram, type ProgramName } from './program';

export function buildProgram(name: ProgramName = 'the-loop') {
  const program = rootProgram(name);
  registerServiceCommands(program);
  registerLoopyCommands(program);
  registerEvalCommands(program);
  registerSessionsCommands(program);
  registerInboxCommand(program);
  registerBudgetCommand(program);
  registerWebhookCommands(program);
  registerBoardCommand(program);
  registerPrCommands(program);
  registerItemCommands(program);
  return program;
}

/** The CLI behind bin/the-loop.js: every command (src/cli/snapshot-main.ts serves `sessions list` alone). */
export function main(argv: string[]): Promise<number> {
  return runProgram(buildProgram(invokedAs(argv)), argv);
}
