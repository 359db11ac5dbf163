import type { ChannelInboundSink, ChannelThread } from '../channel/channel';
import { silentLog, type MessageLog } from '../log/message-log';
import type { BridgeEvent, WorkItemGateway } from './ingress';
import { parseAnswer } from '../channel/keywords';

export interface SlackReplyDeps {
  gateway: WorkItemGateway;
  /** The work item whose recorded thread this is (portable records); null when none is known here. */
  threadOwner(threadId: string): (ChannelThread & { workItem: string }) | null;
  logger?: MessageLog;
}

/**
 * Authorized thread replies → the work item's session, through the same gateway as GitHub comments: a keyword
 * reply is that control verb, an exact `the-loop approve` / `the-loop reject <reason>` answers the waiting gate,
 * anything else is an event queued like a comment (pause holds it; the Slack event id is its dedupe key). A reply
 * in a thread no work item here owns is logged and dropped.
 */
export function createSlackReplySink(deps: SlackReplyDeps): ChannelInboundSink {
  const logger = deps.logger ?? silentLog;
  return async (inbound) => {
    const { reply } = inbound;
    const owner = deps.threadOwner(reply.threadId);
    if (!owner) {
      logger.warn(
        `slack: ${reply.eventId}: no work item here has the thread ${reply.threadId}; reply dropped`,
      );
      return;
    }
    const { workItem } = owner;
    const meta = { by: `slack:${reply.user}`, key: `slack:${reply.eventId}` };
    const said = (what: string, result: string) =>
      logger.info(`slack: ${reply.eventId}: ${what} on ${workItem} by ${reply.user}: ${result}`);
    if (inbound.kind === 'keyword') {
      // an authorized Slack user may start the item again (its thread exists: it was started before)
      const allowStart = inbound.command === 'start';
      const result = await deps.gateway.control(workItem, inbound.command, {
        ...meta,
        subject: workItem,
        allowStart,
      });
      return said(`the-loop ${inbound.command}`, result);
    }
    const text = reply.text.trim();
    const answer = text.includes('\n') ? null : parseAnswer(text);
    if (answer) {
      const result = await deps.gateway.answer(workItem, answer, { ...meta, via: 'slack' });
      return said(`the-loop ${answer.answer}`, result);
    }
    const event: BridgeEvent = {
      ...meta,
      deliveryId: reply.eventId,
      source: 'webhook',
      kind: 'comment',
      workItem,
      subject: workItem,
      actor: meta.by,
      trusted: true,
      text: `Slack: ${reply.user} replied in the work item's thread:\n${reply.text}\n${owner.permalink}`,
      url: owner.permalink,
      at: timeOf(reply.ts),
    };
    said('reply', await deps.gateway.deliver(event, false));
  };
}

/** A Slack ts is seconds since the epoch with a fraction; anything else is now. */
function timeOf(ts: string): string {
  const ms = Number(ts) * 1000;
  return new Date(Number.isFinite(ms) && ms > 0 && ms < 8.64e15 ? ms : Date.now()).toISOString();
}
