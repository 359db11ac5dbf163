import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../src/config/schema';
import { sessionPaths, sessionsRoot } from '../../../src/session/paths';
import { sessionStateFileSchema, type SessionStateFile } from '../../../src/session/schemas';
import type { SessionsContext } from '../../../src/use-cases/context';
import { inboxKey, readInbox } from '../../../src/use-cases/inbox';
import { newSessionState } from '../../../src/workflows/goal-session/bookkeeping';
import { workItemDirs } from '../../../src/work-item/paths';
import { writeRecord } from '../../../src/work-item/registry';
import type { RegistryRecord, Waiting } from '../../../src/work-item/schemas';
import { sessionRecord } from '../../support/registry-record';

const usage = (cost: number) => ({
  input_tokens: 10,
  output_tokens: 20,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
  cost_usd: cost,
  num_turns: 1,
  duration_ms: 1000,
});

function context(): SessionsContext {
  return { config: configSchema.parse({}), stateDir: mkdtempSync(join(tmpdir(), 'uc-inbox-')) };
}

function record(
  ctx: SessionsContext,
  workItem: string,
  waiting: Waiting | null,
  extra: Partial<RegistryRecord> = {},
): void {
  writeRecord(workItemDirs(ctx.config, ctx.stateDir), {
    ...sessionRecord(workItem, [], null),
    waiting,
    ...extra,
  });
}

const GOAL_A = '20261201_000000_0123456789ab_0000000a';
const GOAL_B = '20261201_000000_0123456789ab_0000000b';
const TORN = '20261201_000000_0123456789ab_0000000c';

/** A goal session's directory as a worker leaves it: session.json, then state.json (`content`, or `change`d). */
function goalSession(
  cwd: string,
  id: string,
  change: (state: SessionStateFile) => void,
  content?: string,
): void {
  const state = newSessionState(id, '2026-12-01T00:00:00.000Z');
  change(state);
  const paths = sessionPaths(join(sessionsRoot(cwd), id));
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(paths.session, '{}');
  writeFileSync(paths.state, content ?? JSON.stringify(sessionStateFileSchema.parse(state)));
}

describe('readInbox', () => {
  it('lists every open wait, oldest first (ties by name), each with the command that answers it', () => {
    const ctx = context();
    const cwd = mkdtempSync(join(tmpdir(), 'uc-inbox-cwd-'));
    record(ctx, 'github:octo/repo#3', {
      reason: 'gate',
      detail: 'plan approval',
      since: '2026-12-02T09:00:00.000Z',
    });
    record(ctx, 'github:octo/repo#1', {
      reason: 'permission',
      detail: 'Bash(rm -rf build)',
      since: '2026-12-02T11:00:00.000Z',
    });
    record(
      ctx,
      'github:octo/repo#2',
      {
        reason: 'budget',
        detail: 'github:octo/repo#2 spent $2.00 of its $1.00 budget',
        since: '2026-12-02T09:00:00.000Z',
      },
      {
        spent: {
          usage: usage(2),
          unpriced_models: ['some-model'],
          last_counted: { session_dir: '/s', iteration: 2 },
        },
      },
    );
    record(ctx, 'github:octo/repo#4', {
      reason: 'blocked',
      detail: 'the checkout is gone',
      since: '2026-12-02T08:00:00.000Z',
    });
    goalSession(cwd, GOAL_A, (state) => {
      state.status = 'paused';
      state.dispatch.blocked = {
        reason: 'disk full',
        path: '/x/state.json',
        code: 'ENOSPC',
        iteration: 2,
        at: '2026-12-02T10:00:00.000Z',
      };
      state.usage.total.cost_usd = 0.5;
    });

    const inbox = readInbox(ctx, cwd);
    expect(inbox.entries.map((e) => [e.session, e.reason])).toEqual([
      ['github:octo/repo#4', 'blocked'],
      // the same second: by name
      ['github:octo/repo#2', 'budget'],
      ['github:octo/repo#3', 'gate'],
      [GOAL_A, 'blocked'],
      ['github:octo/repo#1', 'permission'],
    ]);
    const by = new Map(inbox.entries.map((e) => [e.session, e]));
    expect(by.get('github:octo/repo#4')?.next).toBe('the-loop sessions start --work-item github:octo/repo#4');
    expect(by.get('github:octo/repo#2')?.next).toBe('the-loop budget raise github:octo/repo#2 --to <USD>');
    expect(by.get('github:octo/repo#3')?.next).toBe(
      'the-loop sessions answer --work-item github:octo/repo#3 approve|reject',
    );
    expect(by.get('github:octo/repo#1')?.next).toBe(
      'the-loop sessions answer --work-item github:octo/repo#1 allow|deny',
    );
    expect(by.get(GOAL_A)).toMatchObject({
      kind: 'goal',
      detail: 'disk full (/x/state.json)',
      next: `loopy status ${GOAL_A}`,
      spent: { cost_usd: 0.5, unpriced: false },
    });
    // what a work item spent, and whether a model without a price ran
    expect(by.get('github:octo/repo#2')?.spent).toEqual({ cost_usd: 2, unpriced: true });
    expect(by.get('github:octo/repo#1')?.spent).toBeNull();
    expect(inbox.invalid).toEqual([]);
  });

  it('a wait at the fleet budget is answered by raising the fleet budget, for goal sessions too', () => {
    const ctx = context();
    const cwd = mkdtempSync(join(tmpdir(), 'uc-inbox-cwd-'));
    record(ctx, 'github:octo/repo#5', {
      reason: 'budget',
      detail:
        'the fleet (UTC day 2026-12-03) spent $20.00 of its $10.00 budget: `the-loop budget raise --daily --to <USD>`',
      since: '2026-12-03T10:00:00.000Z',
    });
    goalSession(cwd, GOAL_B, (state) => {
      state.status = 'paused';
      state.dispatch.budget = {
        detail: 'the fleet (UTC month 2026-12) spent $200.00: `the-loop budget raise --monthly --to <USD>`',
        at: '2026-12-03T11:00:00.000Z',
      };
    });
    expect(readInbox(ctx, cwd).entries.map((e) => e.next)).toEqual([
      'the-loop budget raise --daily --to <USD>',
      'the-loop budget raise --monthly --to <USD>',
    ]);
  });

  it('leaves out who waits for nobody: no wait, a closed session, a running goal session; names unreadable records', () => {
    const ctx = context();
    const cwd = mkdtempSync(join(tmpdir(), 'uc-inbox-cwd-'));
    record(ctx, 'github:octo/repo#1', null);
    // a closed session waits for nobody, whatever it last recorded
    record(
      ctx,
      'github:octo/repo#2',
      { reason: 'question', detail: 'which one?', since: '2026-12-02T09:00:00.000Z' },
      { status: 'closed' },
    );
    writeFileSync(join(workItemDirs(ctx.config, ctx.stateDir).registryDir, 'torn.json'), '{');
    goalSession(cwd, 'running', (state) => {
      state.status = 'running';
    });
    // a torn state.json is skipped here (loopy list names it), not fatal
    goalSession(cwd, TORN, () => undefined, '{"schema_version":');

    const inbox = readInbox(ctx, cwd);
    expect(inbox.entries).toEqual([]);
    expect(inbox.invalid.map((i) => i.file)).toEqual([expect.stringContaining('torn.json')]);
  });

  it('an empty machine and a directory without goal sessions make an empty inbox', () => {
    expect(readInbox(context(), mkdtempSync(join(tmpdir(), 'uc-inbox-cwd-')))).toEqual({
      entries: [],
      invalid: [],
    });
  });

  it("inboxKey tells a session's new wait from its old one", () => {
    const ctx = context();
    const cwd = mkdtempSync(join(tmpdir(), 'uc-inbox-cwd-'));
    const wait = { reason: 'question' as const, detail: 'which?', since: '2026-12-02T09:00:00.000Z' };
    record(ctx, 'github:octo/repo#1', wait);
    const [before] = readInbox(ctx, cwd).entries;
    record(ctx, 'github:octo/repo#1', { ...wait, detail: 'which one, again?' });
    const [reworded] = readInbox(ctx, cwd).entries;
    record(ctx, 'github:octo/repo#1', { ...wait, since: '2026-12-02T10:00:00.000Z' });
    const [later] = readInbox(ctx, cwd).entries;
    expect(inboxKey(before!)).toBe(inboxKey(reworded!));
    expect(inboxKey(later!)).not.toBe(inboxKey(before!));
  });
});
