import { Command, CommanderError } from '@commander-js/extra-typings';
import { CliError, errorLine, EXIT } from '../errors';
import { describeGitHubError } from '../github/describe-error';
import { addStrictHelpCommands } from './help-command';
import { printable } from './printable';
import { VERSION } from './version';

export type ProgramName = 'the-loop' | 'loopy';

/** The name the user typed: `loopy` when the launcher was reached through that name, `the-loop` otherwise. */
export function invokedAs(argv: string[]): ProgramName {
  return (argv[1] ?? '').split('/').pop()?.replace(/\.js$/, '') === 'loopy' ? 'loopy' : 'the-loop';
}

/** The root command with its global options, and no subcommand yet (main.ts adds them all; the snapshot, one). */
export function rootProgram(name: ProgramName) {
  return (
    new Command()
      .name(name)
      .description('Durable AI-coding-agent sessions on Temporal')
      .version(VERSION, '-V, --version')
      .option(
        '--config <file>',
        'the-loop.yaml to use (default: THE_LOOP_CONFIG, ./the-loop.yaml up to the git root, $XDG_CONFIG_HOME/the-loop/config.yaml)',
      )
      .option('--debug', 'print the stack of an unexpected failure')
      .showSuggestionAfterError(true)
      // A usage error is one line (commander puts its "Did you mean …?" on a second one), with where to look next;
      // what the user typed is in it, escaped.
      .configureOutput({
        outputError: (text, write) =>
          write(`${printable(text.trim().replace(/\s*\n\s*/g, ' '))} — see --help\n`),
      })
      .exitOverride()
  );
}

export type RootProgram = ReturnType<typeof rootProgram>;

/** Every subcommand throws instead of exiting, so that usage errors map to exit 2 in one place. */
function applyExitOverride(command: { commands: readonly unknown[]; exitOverride(): unknown }): void {
  command.exitOverride();
  for (const sub of command.commands as { commands: readonly unknown[]; exitOverride(): unknown }[]) {
    applyExitOverride(sub);
  }
}

/** A reader that went away (`the-loop sessions list | head -1`) ends the command quietly, as it does for `ls`. */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    throw error;
  });
}

/** Parses argv and runs the command it names; every failure becomes one line on stderr and its exit code. */
export async function runProgram(program: RootProgram, argv: string[]): Promise<number> {
  quietOnClosedPipe(process.stdout);
  const name = program.name();
  addStrictHelpCommands(program);
  applyExitOverride(program);
  try {
    await program.parseAsync(argv);
    // Commands that end with a verdict (e.g. a session stopped on a limit) set process.exitCode.
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code))
        return EXIT.ok;
      // commander already printed the message and the suggestion
      return error.code === 'commander.executeSubCommandAsync' ? error.exitCode : EXIT.usage;
    }
    // Messages echo ids, paths and refs as the user typed them: control characters in them are escaped.
    if (error instanceof CliError) {
      process.stderr.write(`${name}: ${printable(error.message)}\n`);
      return error.exitCode;
    }
    const github = describeGitHubError(error);
    if (github) {
      process.stderr.write(`${name}: ${printable(github)}\n`);
      return EXIT.failure;
    }
    // An unexpected failure is one line too; its stack (one escaped line per frame) only on request.
    if (argv.includes('--debug')) {
      const stack = (error as Error).stack ?? String(error);
      process.stderr.write(`${name}: ${stack.split('\n').map(printable).join('\n')}\n`);
    } else
      process.stderr.write(
        `${name}: ${printable(errorLine(error))} (run again with --debug for the stack)\n`,
      );
    return EXIT.failure;
  }
}
