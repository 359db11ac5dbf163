import { EXIT } from '../../../errors';
import type { ControlResult } from '../../../use-cases/control';
import type { WorkItemControlCommand } from '../../../workflows/work-item/messages';
import { runWithProcessIo, type Io } from '../../io';
import { usdArgument } from '../../usd-argument';
import { sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type ControlOptions = SessionsOptions & {
  workItem: string;
  comment?: boolean;
  /** start: the work item's own budget, and leave to run under a budget that cannot count its cost. */
  maxCostUsd?: string;
  allowUnpriced?: true;
};

const CONTROL_DESCRIPTIONS: Record<WorkItemControlCommand, string> = {
  start: 'spawn the session (checkout, harness trust, tmux) or resume a paused one; prints the tmux target',
  pause: 'hold events; the session keeps its conversation',
  resume: 'deliver events again (the queued ones first, in order)',
  stop: 'take the normal close path, and disarm the work item',
  cleanup: "release the work item's local resources (tmux, checkout, local record); keep its portable record",
};

/** The control verbs share one use case: start, pause, resume, stop and cleanup. */
export function declareCommand(sessions: SessionsCommand): void {
  for (const verb of Object.keys(CONTROL_DESCRIPTIONS) as WorkItemControlCommand[]) {
    const command = sessions
      .command(verb)
      .description(CONTROL_DESCRIPTIONS[verb])
      .requiredOption('--work-item <ref>', 'which work item to act on')
      .option('--comment', 'post the equivalent keyword comment on the work item (default)')
      .option('--no-comment', 'do not post the keyword comment');
    if (verb === 'start') {
      command
        .option(
          '--max-cost-usd <usd>',
          "the work item's own budget: once spent, it waits (waiting: budget) until `the-loop budget raise` (default: budget.workItem)",
        )
        .option(
          '--allow-unpriced',
          'start under a budget with a harness whose cost cannot be counted (cursor): the budget sees $0 for it',
        );
    }
    command.action((_options, cmd) =>
      runWithProcessIo((options, io) => run(verb, options as ControlOptions, io), cmd.optsWithGlobals()),
    );
  }
}

function reportLines(result: ControlResult): string[] {
  const { workItem, report } = result;
  if (report === null) return result.lines;
  const target = report.target ?? '?';
  const socket = report.socket ?? '?';
  switch (result.command) {
    case 'start':
      // waiting at a gate of its process graph: nothing was spawned, the report says what it waits for
      if (report.target === null) return report.lines;
      return [
        report.spawned
          ? `started ${workItem} in tmux ${target} (socket ${socket}): tmux -L ${socket} attach -t =${target}`
          : `${workItem} is already running in tmux ${target} (socket ${socket})`,
        // the node the branch says it is at may be a gate: the session is up, and waits for its answer
        ...report.lines,
      ];
    case 'pause':
      return [`paused ${workItem}: events are held until resume (${report.queued} queued)`];
    case 'resume':
      return [`resumed ${workItem}: ${report.queued} queued event(s) will be delivered in order`];
    case 'stop':
      return [...report.lines, `stopped ${workItem}`];
    case 'cleanup':
      return report.lines;
  }
}

/** `sessions start|pause|resume|stop|cleanup`: the verb, then the keyword comment unless --no-comment. */
export async function run(verb: WorkItemControlCommand, options: ControlOptions, io: Io): Promise<number> {
  const { controlSession } = await import('../../../use-cases/control.js');
  const ctx = await sessionsContext(options);
  if (verb === 'start') {
    const { startBudget } = await import('../../../use-cases/start-budget.js');
    const own = options.maxCostUsd === undefined ? null : usdArgument('--max-cost-usd', options.maxCostUsd);
    await startBudget(ctx, options.workItem, own, options.allowUnpriced === true);
  }
  const result = await controlSession(ctx, options.workItem, verb, {
    comment: options.comment !== false,
  });
  for (const line of reportLines(result)) io.out(line);
  if (result.comment?.posted) io.out(`commented 'the-loop ${verb}' on ${result.workItem}`);
  else if (result.comment?.warning) io.err(`warning: ${result.comment.warning} (the ${verb} itself stands)`);
  return EXIT.ok;
}
