import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { EXIT } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { loadContext } from '../../load-context';

export type ControlVerb = 'pause' | 'resume' | 'stop';

export type ControlOptions = GlobalOptions & { reason?: string };

/**
 * Declares both `pause` and `resume`: they share one run, a signal to the workflow. (`stop` is declared with the
 * service's verbs, service/stop.ts, which runs this for a goal session.)
 */
export function declareCommand(program: Command<[], GlobalOptions>): void {
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
      .action((session, _options, command) =>
        runWithProcessIo(
          (options: ControlOptions, io) => run(verb, session, options, io),
          command.optsWithGlobals(),
        ),
      );
  }
}

/** `loopy pause|resume|stop` (and `the-loop stop <session>`): a signal to the session's workflow. */
export async function run(
  verb: ControlVerb,
  id: string | undefined,
  options: ControlOptions,
  io: Io,
): Promise<number> {
  const ctx = await loadContext(options);
  const { connectExisting } = await import('../../../service/connect-existing.js');
  const { sessionWorkflow } = await import('./session-workflow.js');
  const { describeState } = await import('../../format-session.js');
  const { liveState } = await import('./live-state.js');
  const { readState } = await import('./session-files.js');
  const connected = await connectExisting(ctx);
  try {
    const { located, handle, description } = await sessionWorkflow(connected, id);
    if (description.status.name !== 'RUNNING') {
      const state = readState(located.sessionDir);
      io.out(
        `session ${located.sessionId} has already ended — ${state ? describeState(state) : description.status.name.toLowerCase()}`,
      );
      return verb === 'stop' ? EXIT.ok : EXIT.failure;
    }
    // Loaded once connected: with the service down the verb fails without loading the workflow SDK.
    const { pauseSignal, resumeSignal, stopSignal } =
      await import('../../../workflows/goal-session/messages.js');
    if (verb === 'pause') await handle.signal(pauseSignal);
    else if (verb === 'resume') await handle.signal(resumeSignal);
    else await handle.signal(stopSignal, { reason: options.reason, by: 'user' });
    const live = await liveState(connected.client, located.sessionId);
    if (live) {
      io.out(`${verb} sent — session ${located.sessionId} is ${describeState(live.state)}`);
    } else {
      const state = readState(located.sessionDir);
      io.out(
        `${verb} recorded — no worker answered, so it takes effect when one runs; session ${located.sessionId} was last ${state ? describeState(state) : 'starting'}`,
      );
    }
    return EXIT.ok;
  } finally {
    await connected.close();
  }
}
