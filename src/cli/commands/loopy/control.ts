import type { CliContext } from '../../../service/context';
import { connectExisting } from '../../../service/ensure-service';
import { sessionWorkflow } from './session-workflow';
import { EXIT } from '../../../errors';
import { describeState } from '../../format-session';
import { liveState } from './live-state';
import { readState } from './session-files';
import { processIo } from '../../io';

export type ControlVerb = 'pause' | 'resume' | 'stop';

/** `loopy pause|resume|stop` (and `the-loop stop <session>`): a signal to the session's workflow. */
export async function run(
  ctx: CliContext,
  verb: ControlVerb,
  id: string | undefined,
  reason?: string,
): Promise<number> {
  const connected = await connectExisting(ctx);
  try {
    const { located, handle, description } = await sessionWorkflow(connected, id);
    if (description.status.name !== 'RUNNING') {
      const state = readState(located.sessionDir);
      processIo.out(
        `session ${located.sessionId} has already ended — ${state ? describeState(state) : description.status.name.toLowerCase()}`,
      );
      return verb === 'stop' ? EXIT.ok : EXIT.failure;
    }
    // Loaded once connected: with the service down the verb fails without loading the workflow SDK.
    const { pauseSignal, resumeSignal, stopSignal } =
      await import('../../../workflows/goal-session/messages.js');
    if (verb === 'pause') await handle.signal(pauseSignal);
    else if (verb === 'resume') await handle.signal(resumeSignal);
    else await handle.signal(stopSignal, { reason, by: 'user' });
    const live = await liveState(connected.client, located.sessionId);
    if (live) {
      processIo.out(`${verb} sent — session ${located.sessionId} is ${describeState(live.state)}`);
    } else {
      const state = readState(located.sessionDir);
      processIo.out(
        `${verb} recorded — no worker answered, so it takes effect when one runs; session ${located.sessionId} was last ${state ? describeState(state) : 'starting'}`,
      );
    }
    return EXIT.ok;
  } finally {
    await connected.close();
  }
}
