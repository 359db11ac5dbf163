import {
  acceptsEvent,
  blankControlReport,
  canDeliver,
  carriedState,
  closeRefusal,
  controlRefusal,
  SEEN_LIMIT,
  stateAfterFailedClose,
} from '../../../../src/workflows/work-item/rules';

const event = { id: 'comment:1', text: 'hello', source: 'poller' };
const ready = { state: 'active' as const, tmuxLost: null, blocked: null, queued: 1, closing: false };

describe('work-item session rules', () => {
  it('takes a new event while open, and drops a redelivery or an event for a closing session', () => {
    expect(acceptsEvent('active', new Set(), event)).toBe(true);
    expect(acceptsEvent('paused', new Set(), event)).toBe(true);
    expect(acceptsEvent('opening', new Set(), event)).toBe(true);
    expect(acceptsEvent('active', new Set(['comment:1']), event)).toBe(false);
    expect(acceptsEvent('closing', new Set(), event)).toBe(false);
    expect(acceptsEvent('closed', new Set(), event)).toBe(false);
  });

  it('delivers only to an active pane with something queued and nothing in the way', () => {
    expect(canDeliver(ready)).toBe(true);
    expect(canDeliver({ ...ready, state: 'paused' })).toBe(false);
    expect(canDeliver({ ...ready, tmuxLost: 'pane gone' })).toBe(false);
    expect(canDeliver({ ...ready, blocked: 'paste failed' })).toBe(false);
    expect(canDeliver({ ...ready, budget: 'spent $1.00 of its $1.00 budget' })).toBe(false);
    expect(canDeliver({ ...ready, queued: 0 })).toBe(false);
    expect(canDeliver({ ...ready, closing: true })).toBe(false);
    expect(canDeliver({ ...ready, starting: true })).toBe(false); // a start's own turn goes first
  });

  it('returns to what the last control left after a failed close', () => {
    expect(stateAfterFailedClose('pause')).toBe('paused');
    expect(stateAfterFailedClose('resume')).toBe('active');
    expect(stateAfterFailedClose(null)).toBe('active');
  });

  it('carries the queue and the newest seen ids into the next run', () => {
    const seen = Array.from({ length: SEEN_LIMIT + 20 }, (_, i) => `e${i}`);
    const carried = carriedState({
      state: 'paused',
      queue: [event],
      iteration: 4,
      seen: new Set(seen),
      tmuxLost: null,
      lastControl: 'pause',
    });
    expect(carried).toMatchObject({ status: 'paused', queue: [event], iteration: 4, lastControl: 'pause' });
    expect(carried.seen).toHaveLength(SEEN_LIMIT);
    expect(carried.seen[0]).toBe('e20');
    expect(carriedState({ ...carried, state: 'active', seen: [] }).status).toBe('active');
    expect(carried).not.toHaveProperty('waiting');
  });

  it('carries the dialog a pane waits at: a session waiting for a human is idle, so it is the one continued as new', () => {
    const waiting = 'Do you want to proceed?';
    const carried = carriedState({
      state: 'active',
      queue: [],
      iteration: 2,
      seen: [],
      tmuxLost: null,
      lastControl: null,
      waiting,
    });
    expect(carried.waiting).toBe(waiting);
    expect(carriedState({ ...carried, state: 'active', seen: [], waiting: null })).not.toHaveProperty(
      'waiting',
    );
  });

  it('refuses an unknown control command, and any control of a closing or closed session', () => {
    expect(controlRefusal('gh#1', 'start', 'active')).toBeNull();
    expect(controlRefusal('gh#1', 'resume', 'opening')).toBeNull();
    expect(controlRefusal('gh#1', 'explode', 'active')).toBe("unknown control command 'explode'");
    expect(controlRefusal('gh#1', 'stop', 'closing')).toBe('gh#1 is already closed');
    expect(controlRefusal('gh#1', 'stop', 'closed')).toBe('gh#1 is already closed');
  });

  it('refuses to close a closed session, and lets a second close join one under way', () => {
    expect(closeRefusal('gh#1', 'closed')).toBe('gh#1 is already closed');
    expect(closeRefusal('gh#1', 'closing')).toBeNull();
    expect(closeRefusal('gh#1', 'active')).toBeNull();
  });

  it('starts a control report with nothing done', () => {
    expect(blankControlReport('gh#1', 'pause', 2)).toEqual({
      workItem: 'gh#1',
      command: 'pause',
      target: null,
      socket: null,
      spawned: false,
      resumed: false,
      lines: [],
      comment: null,
      queued: 2,
    });
  });
});

describe('turn delivery rules', () => {
  const rules = jest.requireActual<typeof import('../../../../src/workflows/work-item/rules')>(
    '../../../../src/workflows/work-item/rules',
  );
  const view = { state: 'active' as const, tmuxLost: null, blocked: null, queued: 1, closing: false };

  it('holds events while a dialog waits for a human', () => {
    expect(rules.canDeliver({ ...view, waiting: 'Claude needs your permission to use Bash' })).toBe(false);
    expect(rules.canDeliver({ ...view, waiting: null })).toBe(true);
  });

  it('shows LoopStatus waiting only for an active session with a waiting dialog', () => {
    expect(rules.shownStatus('active', 'permission')).toBe('waiting');
    expect(rules.shownStatus('paused', 'permission')).toBe('paused');
    expect(rules.shownStatus('active', null)).toBe('active');
  });

  it('kicks off a freshly spawned claude session on a new conversation with /the-loop:work-on (no graph)', () => {
    const seen = new Set<string>();
    const base = { harness: 'claude', graph: false, spawned: true, resumed: false, iteration: 0, seen };
    expect(rules.kickoffEvent('github:octo/repo#1', base)).toEqual({
      id: rules.KICKOFF_EVENT_ID,
      text: '/the-loop:work-on github:octo/repo#1',
      source: 'kickoff',
    });
    expect(rules.kickoffEvent('github:octo/repo#1', { ...base, iteration: 2 })).toBeNull();
    expect(rules.kickoffEvent('github:octo/repo#1', { ...base, harness: 'cursor' })).toBeNull();
    expect(rules.kickoffEvent('github:octo/repo#1', { ...base, spawned: false })).toBeNull();
    expect(rules.kickoffEvent('github:octo/repo#1', { ...base, resumed: true })).toBeNull();
    // with a process graph the start node's turn (`--phase <node>`) is the kickoff
    expect(rules.kickoffEvent('github:octo/repo#1', { ...base, graph: true })).toBeNull();
    expect(
      rules.kickoffEvent('github:octo/repo#1', { ...base, seen: new Set([rules.KICKOFF_EVENT_ID]) }),
    ).toBeNull();
  });
});
