import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { usageError } from '../errors';

/**
 * Replaces commander's implicit `help [command]` of every command that has subcommands with one that refuses an
 * unknown topic: commander's printed the whole help and exited 0 for `the-loop help frobnicate`, so a typo looked
 * like an answer. `help sessions list` walks down to the subcommand.
 */
export function addStrictHelpCommands(command: CommandUnknownOpts): void {
  if (command.commands.length === 0) return;
  for (const sub of command.commands) addStrictHelpCommands(sub);
  command.helpCommand(false);
  command
    .command('help')
    .argument('[command...]')
    .description('display help for command')
    .action((topic: string[]) => {
      let target = command;
      for (const word of topic) {
        const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (next === undefined) {
          const path = [commandPath(target), 'help'].join(' ');
          throw usageError(`unknown command '${word}': \`${path}\` lists the commands`);
        }
        target = next;
      }
      target.help();
    });
}

/** `the-loop sessions`: the words that reach `command` from the root. */
function commandPath(command: CommandUnknownOpts): string {
  const words: string[] = [];
  for (let c: CommandUnknownOpts | null = command; c !== null; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}
