import { Option, type Command } from '@commander-js/extra-typings';
import type { StopKind } from '../../../workflows/goal-session/types';
import type { GlobalOptions } from '../../../service/context';
import { EXIT, usageError } from '../../../errors';
import type { RawRunOptions } from '../../run-options';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';

export type LoopyRunOptions = GlobalOptions & RawRunOptions;

const LIMIT_STOPS: readonly StopKind[] = ['max_iterations', 'budget', 'max_duration', 'consecutive_failures'];

export function exitCodeFor(kind: StopKind): number {
  if (kind === 'error') return EXIT.failure;
  return LIMIT_STOPS.includes(kind) ? EXIT.limit : EXIT.ok;
}

export function declareCommand(program: Command<[], GlobalOptions>): void {
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
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `loopy run`: starts a goal session and follows its events; Ctrl-C detaches and leaves it running. */
export async function run(raw: LoopyRunOptions, io: Io): Promise<number> {
  const ctx = await loadContext(raw);
  const { readBudgetFile } = await import('../../../budget/limits-file.js');
  const { workItemDirs } = await import('../../../work-item/paths.js');
  const { stateRoot } = workItemDirs(ctx.config, ctx.stateDir);
  const budgets = readBudgetFile(stateRoot);
  const { validateRunOptions } = await import('../../run-options.js');
  const options = validateRunOptions(raw, ctx.config, process.cwd(), budgets);
  const { sessionHarnessProblem } = await import('../../../harness/preflight.js');
  const harnessProblem = await sessionHarnessProblem(options.harness, options.routines, ctx.config);
  if (harnessProblem) throw usageError(harnessProblem);
  const { connectOrStart } = await import('../../../service/ensure-service.js');
  const connected = await connectOrStart(ctx);
  try {
    const { buildSessionInput } = await import('../../session-input.js');
    const { startGoalSession } = await import('../../start-session.js');
    const { workflowUiLink } = await import('../../../temporal/web-ui.js');
    const { followEvents } = await import('../../follow-session.js');
    const input = buildSessionInput(ctx.config, {
      goal: options.goal,
      cwd: options.cwd,
      harness: options.harness,
      harnessCommand: options.harnessCommand,
      routines: options.routines,
      routinesFile: options.routinesFile,
      maxIterations: options.maxIterations,
      maxCostUsd: options.maxCostUsd,
      maxDurationMs: options.maxDurationMs,
    });
    const handle = await startGoalSession(connected.client, input);
    const { rememberGoalRoot } = await import('../../../session/goal-roots.js');
    rememberGoalRoot(stateRoot, options.cwd);
    const link = workflowUiLink(connected.uiAddress, connected.target.namespace, input.sessionId);
    if (options.detach) {
      io.out(input.sessionId);
      return EXIT.ok;
    }
    if (options.format === 'text') {
      io.out(`session ${input.sessionId}`);
      io.out(`directory ${input.sessionDir}`);
      if (link) io.out(`web ui ${link}`);
    }
    const detach = new AbortController();
    const onSigint = () => detach.abort();
    process.once('SIGINT', onSigint);
    const result = await followEvents(input.sessionDir, options.format, io, {
      handle,
      signal: detach.signal,
      untilStopped: true,
    });
    process.removeListener('SIGINT', onSigint);
    if (detach.signal.aborted && !result) {
      io.err(
        `detached — session ${input.sessionId} keeps running (\`loopy status ${input.sessionId}\`, \`loopy stop ${input.sessionId}\`)`,
      );
      return EXIT.ok;
    }
    return result ? exitCodeFor(result.stop.kind) : EXIT.ok;
  } finally {
    await connected.close();
  }
}
