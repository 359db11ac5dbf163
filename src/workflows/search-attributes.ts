import {
  defineSearchAttributeKey,
  SearchAttributeType,
  type SearchAttributeUpdatePair,
} from '@temporalio/common';

/** Custom search attributes: registered by the dev-server launcher and by `the-loop worker` on a real cluster. */
export const LoopKind = defineSearchAttributeKey('LoopKind', SearchAttributeType.KEYWORD);
export const LoopStatus = defineSearchAttributeKey('LoopStatus', SearchAttributeType.KEYWORD);
export const LoopHarness = defineSearchAttributeKey('LoopHarness', SearchAttributeType.KEYWORD);
export const LoopIteration = defineSearchAttributeKey('LoopIteration', SearchAttributeType.INT);
export const LoopCostUsd = defineSearchAttributeKey('LoopCostUsd', SearchAttributeType.DOUBLE);
export const LoopWorkItem = defineSearchAttributeKey('LoopWorkItem', SearchAttributeType.KEYWORD);
export const LoopParentSession = defineSearchAttributeKey('LoopParentSession', SearchAttributeType.KEYWORD);
/** Why the session waits for a person (permission, question, gate, blocked, stuck, budget); empty while it does not. */
export const LoopWaiting = defineSearchAttributeKey('LoopWaiting', SearchAttributeType.KEYWORD);
/** The goal, searchable as text (`LoopGoal = "parser"`); clipped, since a search attribute is no place for a spec. */
export const LoopGoal = defineSearchAttributeKey('LoopGoal', SearchAttributeType.TEXT);

export const LOOP_SEARCH_ATTRIBUTES = [
  LoopKind,
  LoopStatus,
  LoopHarness,
  LoopIteration,
  LoopCostUsd,
  LoopWorkItem,
  LoopParentSession,
  LoopGoal,
  LoopWaiting,
] as const;

/** A goal session's attributes, as it upserts them: how the Web UI and visibility queries find its sessions. */
export function goalSessionAttributes(
  session: { harness: string; parentSessionId: string | null },
  state: { status: string; iteration: number; usage: { total: { cost_usd: number } } },
): SearchAttributeUpdatePair[] {
  return [
    { key: LoopKind, value: 'goal' },
    { key: LoopStatus, value: state.status },
    { key: LoopHarness, value: session.harness },
    { key: LoopIteration, value: state.iteration },
    { key: LoopCostUsd, value: state.usage.total.cost_usd },
    ...(session.parentSessionId ? [{ key: LoopParentSession, value: session.parentSessionId }] : []),
  ];
}
