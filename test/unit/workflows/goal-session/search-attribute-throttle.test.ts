import {
  NOTHING_PUBLISHED,
  SEARCH_ATTRIBUTE_REFRESH_MS,
  searchAttributesDue,
} from '../../../../src/workflows/goal-session/search-attribute-throttle';
import {
  goalSessionAttributes,
  LoopCostUsd,
  LoopParentSession,
  LoopStatus,
} from '../../../../src/workflows/search-attributes';

describe('search-attribute throttle', () => {
  it('publishes the first time', () => {
    expect(searchAttributesDue(NOTHING_PUBLISHED, 'running', 0)).toBe(true);
  });

  it('holds back a turn within a second of the last upsert of the same status', () => {
    const last = { atMs: 10_000, status: 'running' };
    expect(searchAttributesDue(last, 'running', 10_000 + SEARCH_ATTRIBUTE_REFRESH_MS - 1)).toBe(false);
    expect(searchAttributesDue(last, 'running', 10_000 + SEARCH_ATTRIBUTE_REFRESH_MS)).toBe(true);
  });

  it('publishes a status change at once', () => {
    expect(searchAttributesDue({ atMs: 10_000, status: 'paused' }, 'running', 10_001)).toBe(true);
  });
});

describe('goal-session search attributes', () => {
  const state = { status: 'running', iteration: 4, usage: { total: { cost_usd: 0.25 } } };

  it('carry the status, iteration and cost; the parent only for a child session', () => {
    const top = goalSessionAttributes({ harness: 'claude', parentSessionId: null }, state);
    expect(top.find((pair) => pair.key === LoopStatus)?.value).toBe('running');
    expect(top.find((pair) => pair.key === LoopCostUsd)?.value).toBe(0.25);
    expect(top.some((pair) => pair.key === LoopParentSession)).toBe(false);
    const child = goalSessionAttributes({ harness: 'claude', parentSessionId: 'parent-1' }, state);
    expect(child.find((pair) => pair.key === LoopParentSession)?.value).toBe('parent-1');
  });
});
