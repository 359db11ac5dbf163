import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import {
  answerWorkItemGate,
  answerWorkItemPermission,
  controlWorkItem,
  deliverToWorkItem,
  signalItemClosed,
  type WorkItemQueues,
} from '../temporal/work-items';
import { liveOrHere } from '../temporal/live-or-here';
import { deliverEventSignal, workItemWorkflowId } from '../workflows/work-item/messages';
import { cleanupLocal, recordControl, type HostContext } from '../work-item/host';
import type { GatewayResult, WorkItemGateway } from './ingress';
import { answersPermission, type GateAnswerKeyword, type PermissionAnswerKeyword } from '../channel/keywords';
import type { KeywordCommand } from '../channel/keywords';
import { errorLine } from '../errors';
import { silentLog, type MessageLog } from '../log/message-log';

export interface TemporalGatewayOptions {
  /**
   * A control verb is a workflow update (start spawns the session before it answers). Past this bound the
   * ingress stops waiting and reports the verb as signalled: the update goes on without it.
   */
  controlWaitMs?: number;
  logger?: MessageLog;
  /**
   * This machine's host layer: with no session running, a `stop` or `cleanup` keyword acts on it exactly as the
   * CLI verb does (stop records the disarm; cleanup releases the local resources). Without it they find nothing.
   */
  local?: HostContext;
}

/**
 * The bridge's `here` of liveOrHere: a stop or cleanup keyword acts on this machine as the CLI verb does; any other
 * keyword, or a bridge without a host layer, finds nothing to act on.
 */
async function withoutSession(
  local: HostContext | undefined,
  workItem: string,
  command: KeywordCommand,
  by: string,
  logger: MessageLog,
): Promise<GatewayResult> {
  if (!local || (command !== 'stop' && command !== 'cleanup')) return 'not-running';
  if (command === 'stop') {
    await recordControl(local, { workItem, command, by, via: 'comment' });
    return 'signalled';
  }
  // cleanup records itself (disarmed, the graph at its cleanup node), as the CLI verb's fallback does
  const result = await cleanupLocal(local, workItem, { by, via: 'comment' });
  for (const line of result.lines) logger.info(`the-loop cleanup: ${line}`);
  return 'signalled';
}

/**
 * A control keyword as the workflow update it is; past `waitMs` it counts as signalled, and the update goes on
 * without the ingress waiting for it.
 */
async function sendControl(
  client: Client,
  queues: WorkItemQueues,
  workItem: string,
  command: KeywordCommand,
  by: string,
  waitMs: number,
  logger: MessageLog,
): Promise<GatewayResult> {
  const update = controlWorkItem(client, queues, workItem, {
    command,
    by,
    via: 'comment',
    // the keyword already is a comment on the item: posting it back would only echo it
    comment: false,
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), waitMs);
  });
  try {
    const report = await Promise.race([update, late]);
    if (report === 'late') {
      update.catch((error: unknown) =>
        logger.warn(`the-loop ${command} on ${workItem} failed: ${describe(error)}`),
      );
      return command === 'start' ? 'started' : 'signalled';
    }
    if (report === null) return 'not-running';
    return command === 'start' && report.spawned ? 'started' : 'signalled';
  } catch (error) {
    // the workflow refused it (already closed, …): nothing runs that could take it
    if (error instanceof WorkflowUpdateFailedError) {
      logger.warn(`the-loop ${command} on ${workItem} refused: ${describe(error)}`);
      return 'not-running';
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The bridge → `work-item/<ref>` workflows, through the work-item layer's own client functions. */
export function createTemporalGateway(
  client: Client,
  queues: WorkItemQueues,
  options: TemporalGatewayOptions = {},
): WorkItemGateway {
  const wait = options.controlWaitMs ?? 6000;
  const logger = options.logger ?? silentLog;
  return {
    async control(workItem, command, meta) {
      const send = () => sendControl(client, queues, workItem, command, meta.by, wait, logger);
      // start opens a session when none runs, so it needs no look first
      if (command === 'start' && meta.allowStart) return send();
      return liveOrHere(client, workItem, send, () =>
        withoutSession(options.local, workItem, command, meta.by, logger),
      );
    },

    async deliver(event, allowStart): Promise<GatewayResult> {
      const payload = { id: event.key, text: event.text, source: event.source };
      // One RPC on the hot path: signal the running session; only a missing one costs a second call.
      try {
        await client.workflow
          .getHandle(workItemWorkflowId(event.workItem))
          .signal(deliverEventSignal, payload);
        return 'signalled';
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
      if (!allowStart) return 'not-running';
      return deliverToWorkItem(client, queues, event.workItem, payload, allowStart);
    },

    async close(workItem, meta) {
      const signalled = await signalItemClosed(client, workItem, meta.reason, meta.authorized);
      return signalled ? 'signalled' : 'not-running';
    },

    async answer(workItem, answer, meta) {
      try {
        // the ingress answers only for an author it authorized
        const said = answer as PermissionAnswerKeyword | GateAnswerKeyword;
        const report = answersPermission(said)
          ? await answerWorkItemPermission(client, workItem, {
              decision: said.answer,
              reason: said.reason,
              always: said.always === true,
              by: meta.by,
              via: meta.via === 'slack' ? 'slack' : 'comment',
              authorized: true,
            })
          : await answerWorkItemGate(client, workItem, {
              answer: said.answer,
              reason: said.reason,
              by: meta.by,
              via: meta.via === 'label' ? 'label' : 'comment',
              authorized: true,
            });
        return report === null ? 'not-running' : 'signalled';
      } catch (error) {
        // refused (nothing waiting for it, or answered already): a stale answer changes nothing
        if (error instanceof WorkflowUpdateFailedError) {
          logger.warn(`the-loop ${answer.answer} on ${workItem} refused: ${describe(error)}`);
          return 'not-running';
        }
        throw error;
      }
    },
  };
}

function describe(error: unknown): string {
  if (error instanceof WorkflowUpdateFailedError && error.cause) return error.cause.message;
  return errorLine(error);
}
