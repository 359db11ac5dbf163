import type { BridgeEvent, GatewayResult, WorkItemGateway } from '../../../src/bridge/ingress';
import type { AnswerKeyword, KeywordCommand } from '../../../src/channel/keywords';

export type GatewayCall =
  | { type: 'control'; workItem: string; command: KeywordCommand; allowStart: boolean; by: string }
  | { type: 'deliver'; workItem: string; event: BridgeEvent; allowStart: boolean }
  | { type: 'close'; workItem: string; reason: string; authorized: boolean }
  | { type: 'answer'; workItem: string; answer: AnswerKeyword; by: string };

/** An in-memory work-item gateway: which sessions run, and every call made to it. */
export class RecordingGateway implements WorkItemGateway {
  readonly calls: GatewayCall[] = [];
  readonly running = new Set<string>();

  async control(
    workItem: string,
    command: KeywordCommand,
    meta: { by: string; allowStart: boolean },
  ): Promise<GatewayResult> {
    this.calls.push({ type: 'control', workItem, command, allowStart: meta.allowStart, by: meta.by });
    if (this.running.has(workItem)) {
      if (command === 'stop' || command === 'cleanup') this.running.delete(workItem);
      return 'signalled';
    }
    if (command === 'start' && meta.allowStart) {
      this.running.add(workItem);
      return 'started';
    }
    return 'not-running';
  }

  async deliver(event: BridgeEvent, allowStart: boolean): Promise<GatewayResult> {
    this.calls.push({ type: 'deliver', workItem: event.workItem, event, allowStart });
    if (this.running.has(event.workItem)) return 'signalled';
    if (allowStart) {
      this.running.add(event.workItem);
      return 'started';
    }
    return 'not-running';
  }

  async close(workItem: string, meta: { reason: string; authorized: boolean }): Promise<GatewayResult> {
    this.calls.push({ type: 'close', workItem, reason: meta.reason, authorized: meta.authorized });
    if (!this.running.delete(workItem)) return 'not-running';
    return 'signalled';
  }

  async answer(workItem: string, answer: AnswerKeyword, meta: { by: string }): Promise<GatewayResult> {
    this.calls.push({ type: 'answer', workItem, answer, by: meta.by });
    return this.running.has(workItem) ? 'signalled' : 'not-running';
  }
}
