import { Command, Option } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { processIo } from '../../io';

/** Loads the config only once a verb runs; `--help` and `--version` never do. */
async function context(program: Command<[], GlobalOptions>) {
  const { createContext } = await import('../../../service/context.js');
  return createContext(program.opts());
}

/**
 * `loopy <verb>`: the goal-session verbs, one file each under this folder, loaded by their action only. File-only
 * verbs (list, events, status of an ended session) never load the Temporal client.
 */
export function registerLoopyCommands(program: Command<[], GlobalOptions>): void {
  program
    .command('run')
    .description(
      'start a goal session and follow its events until it ends (Ctrl-C detaches; the session keeps running)',
    )
    .option('--goal <text>', 'what the session should achieve')
    .option('--goal-file <file>', 'read the goal from a file')
    .option(
      '--harness <name>',
      'claude, cursor, codex or command (default: harness.default in the-loop.yaml, else claude)',
    )
    .option(
      '--harness-command <cmd>',
      "the command harness's command line; placeholders {prompt_file} {session_dir} {iteration_dir} {goal_file}",
    )
    .option(
      '--workflows <file>',
      'loop workflows YAML (default: the built-in planner / worker / goal_check set)',
    )
    .option('--max-iterations <n>', 'stop after this many iterations (default: session.maxIterations, 100)')
    .option('--max-cost-usd <usd>', 'stop once the session (with its children) has spent this much')
    .option('--max-duration <duration>', 'stop dispatching after this long, e.g. 2h or 45m')
    .option(
      '--allow-unpriced',
      'run under a budget with a harness whose cost cannot be counted (cursor, command): the budget sees $0 for it',
    )
    .option(
      '--cwd <dir>',
      'the working directory; the session directory goes under <dir>/.loopy_loop/sessions/',
      '.',
    )
    .option('--detach', 'print the session id and return at once')
    .addOption(new Option('--format <format>', 'text or jsonl').default('text'))
    .action(async (options) => {
      const { run } = await import('./run.js');
      process.exitCode = await run(await context(program), options);
    });

  for (const verb of ['pause', 'resume'] as const) {
    program
      .command(verb)
      .argument('[session]', 'session id (default: the most recent session under the current directory)')
      .description(
        {
          pause: 'let the running iteration finish, then dispatch nothing until resume',
          resume: 'dispatch again after a pause',
        }[verb],
      )
      .action(async (session) => {
        const { run } = await import('./control.js');
        process.exitCode = await run(await context(program), verb, session);
      });
  }

  program
    .command('move')
    .argument('[session]', 'session id (default: the most recent session under the current directory)')
    .requiredOption('--to-host <id>', "the host to run on from now on (its worker's worker.hostId)")
    .description(
      'run the session on another host from now on: its directory must be reachable there at the same path',
    )
    .action(async (session, options) => {
      const { run } = await import('./move.js');
      process.exitCode = await run(await context(program), session, options.toHost);
    });

  program
    .command('update')
    .argument('<session>', 'session id')
    .argument('<text...>', 'the request; appended to updates_from_user.md')
    .description(
      "append a request to the session's updates_from_user.md: the next iteration's highest-priority input",
    )
    .action(async (session, words) => {
      const { run } = await import('./update.js');
      process.exitCode = await run(await context(program), session, words);
    });

  program
    .command('list')
    .description('the sessions under the current directory')
    .addOption(
      new Option(
        '--status <status>',
        'only the sessions with this status (finished: stopped through control.json; waiting: on a person)',
      ).choices(['starting', 'running', 'paused', 'stopped', 'finished', 'waiting'] as const),
    )
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['table', 'json'] as const)
        .default('table' as const),
    )
    .action(async (options) => {
      await context(program);
      const { run } = await import('./list.js');
      process.exitCode = await run(options, processIo);
    });

  program
    .command('events')
    .argument('[session]', 'session id (default: the most recent session under the current directory)')
    .description("print the session's events.jsonl; --follow keeps printing until the session stops")
    .option('--follow', 'keep printing new events (tolerates a torn last line)')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['text', 'jsonl'] as const)
        .default('text' as const),
    )
    .action(async (session, options) => {
      await context(program);
      const { run } = await import('./events.js');
      process.exitCode = await run(session, options);
    });
}
