import type { StopKind } from '../../../workflows/goal-session/types';
import type { CliContext } from '../../../service/context';
import { connectOrStart } from '../../../service/ensure-service';
import { workflowUiLink } from '../../../temporal/web-ui';
import { EXIT, usageError } from '../../../errors';
import { followEvents } from '../../follow-session';
import { validateRunOptions } from '../../run-options';
import { buildSessionInput } from '../../session-input';
import { startGoalSession } from '../../start-session';
import { processIo } from '../../io';

const LIMIT_STOPS: readonly StopKind[] = ['max_iterations', 'budget', 'max_duration', 'consecutive_failures'];

export function exitCodeFor(kind: StopKind): number {
  if (kind === 'error') return EXIT.failure;
  return LIMIT_STOPS.includes(kind) ? EXIT.limit : EXIT.ok;
}

/** `loopy run`: starts a goal session and follows its events; Ctrl-C detaches and leaves it running. */
export async function run(ctx: CliContext, raw: Parameters<typeof validateRunOptions>[0]): Promise<number> {
  const { readBudgetFile } = await import('../../../budget/limits-file.js');
  const { workItemDirs } = await import('../../../work-item/paths.js');
  const { stateRoot } = workItemDirs(ctx.config, ctx.stateDir);
  const budgets = readBudgetFile(stateRoot);
  const options = validateRunOptions(raw, ctx.config, process.cwd(), budgets);
  const { sessionHarnessProblem } = await import('../../../harness/preflight.js');
  const harnessProblem = await sessionHarnessProblem(options.harness, options.routines, ctx.config);
  if (harnessProblem) throw usageError(harnessProblem);
  const connected = await connectOrStart(ctx);
  try {
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
      processIo.out(input.sessionId);
      return EXIT.ok;
    }
    if (options.format === 'text') {
      processIo.out(`session ${input.sessionId}`);
      processIo.out(`directory ${input.sessionDir}`);
      if (link) processIo.out(`web ui ${link}`);
    }
    const detach = new AbortController();
    const onSigint = () => detach.abort();
    process.once('SIGINT', onSigint);
    const result = await followEvents(input.sessionDir, options.format, {
      handle,
      signal: detach.signal,
      untilStopped: true,
    });
    process.removeListener('SIGINT', onSigint);
    if (detach.signal.aborted && !result) {
      process.stderr.write(
        `detached — session ${input.sessionId} keeps running (\`loopy status ${input.sessionId}\`, \`loopy stop ${input.sessionId}\`)\n`,
      );
      return EXIT.ok;
    }
    return result ? exitCodeFor(result.stop.kind) : EXIT.ok;
  } finally {
    await connected.close();
  }
}
