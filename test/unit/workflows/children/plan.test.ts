import { mkdtempSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanChildRequests } from '../../../../src/activities/child-requests';
import { renderSessionTree, type SessionTreeNode } from '../../../../src/cli/session-tree';
import { writeJsonAtomic } from '../../../../src/session/json-file';
import { childrenFileSchema } from '../../../../src/session/schemas';
import { isSessionId, newSessionId } from '../../../../src/session/session-id';
import {
  childLimits,
  childSessionId,
  childStatusForStop,
  describeStop,
  selectPendingRequests,
  type ChildRequestScan,
} from '../../../../src/workflows/children/plan';

const scan = (file: string, fingerprint: string): ChildRequestScan => ({
  file,
  fingerprint,
  modifiedAt: '2026-01-01T00:00:00.000Z',
  request: { goal: 'g' },
  goalHash: '0123456789ab',
  routines: null,
  routinesFile: null,
  error: null,
});

test('pending requests: new names and rewritten files, not handled ones, and a busy name waits', () => {
  const records = [
    { request_file: 'done.json', status: 'complete' as const, request_fingerprint: 'f1' },
    { request_file: 'busy.json', status: 'running' as const, request_fingerprint: 'f2' },
    { request_file: 'bad.json', status: 'rejected' as const, request_fingerprint: 'f3' },
  ];
  const pending = selectPendingRequests(records, [
    scan('new.json', 'x'),
    scan('done.json', 'f1'),
    scan('done.json', 'f1b'),
    scan('busy.json', 'f2b'),
    scan('bad.json', 'f3'),
    scan('a.json', 'y'),
  ]);
  expect(pending.map((p) => `${p.file}:${p.fingerprint}`)).toEqual([
    'a.json:y',
    'done.json:f1b',
    'new.json:x',
  ]);
});

test('child limits: budget capped at what the parent has left, spent budget rejects, defaults inherited', () => {
  const parent = {
    limits: { maxIterations: 7, maxCostUsd: 1, maxDurationMs: 60_000 },
    spentUsd: 0.25,
    elapsedMs: 10_000,
  };
  expect(childLimits({ goal: 'g', max_cost_usd: 5 }, parent)).toEqual({
    ok: true,
    maxIterations: 7,
    maxCostUsd: 0.75,
    maxDurationMs: 50_000,
    capped: true,
  });
  expect(childLimits({ goal: 'g', max_cost_usd: 0.5, max_iterations: 2 }, parent)).toMatchObject({
    maxCostUsd: 0.5,
    maxIterations: 2,
    capped: false,
  });
  expect(childLimits({ goal: 'g' }, parent)).toMatchObject({ maxCostUsd: 0.75, capped: false });
  expect(childLimits({ goal: 'g' }, { ...parent, spentUsd: 1 })).toMatchObject({ ok: false });
  const unlimited = {
    limits: { maxIterations: null, maxCostUsd: null, maxDurationMs: null },
    spentUsd: 9,
    elapsedMs: 0,
  };
  expect(childLimits({ goal: 'g', max_cost_usd: 2 }, unlimited)).toMatchObject({
    maxCostUsd: 2,
    maxDurationMs: null,
  });
});

test('child session ids have the layout doc format; stop kinds map onto children.json statuses', () => {
  const at = new Date('2026-04-19T14:30:22.123Z');
  const id = childSessionId('71393ee22450', at.toISOString(), 'ab12cd34-0000-4000');
  expect(id).toBe('20260419_143022_71393ee22450_ab12cd34');
  expect(isSessionId(id)).toBe(true);
  expect(id.slice(0, 15)).toBe(newSessionId('x', at).slice(0, 15));
  expect(childStatusForStop('budget')).toBe('complete');
  expect(childStatusForStop('control')).toBe('complete');
  expect(childStatusForStop('parent')).toBe('stopped');
  expect(childStatusForStop('user')).toBe('stopped');
  expect(childStatusForStop('consecutive_failures')).toBe('failed');
  expect(describeStop('budget', 'budget: spent $1.00 of $1.00')).toBe('budget: spent $1.00 of $1.00');
  expect(describeStop('max_iterations', 'max iterations: ran 2 of 2')).toBe('max iterations: ran 2 of 2');
  expect(describeStop('user', 'enough')).toBe('user: enough');
});

test('the scan validates *.json requests, skips what children.json already records, and never throws', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scan-'));
  const inbox = join(dir, 'child_requests');
  mkdirSync(inbox);
  writeFileSync(join(inbox, 'ok.json'), JSON.stringify({ goal: ' do it ', max_cost_usd: 2 }));
  writeFileSync(join(inbox, 'torn.json'), '{"goal":');
  writeFileSync(join(inbox, 'wf.json'), JSON.stringify({ goal: 'g', workflows: 'missing.yaml' }));
  writeFileSync(join(inbox, 'notes.md'), 'ignored');
  writeFileSync(join(inbox, '.tmp.json'), 'ignored');
  mkdirSync(join(inbox, 'dir.json'));
  const first = scanChildRequests(dir);
  expect(first.map((s) => s.file)).toEqual(['ok.json', 'torn.json', 'wf.json']);
  expect(first[0]).toMatchObject({ request: { goal: 'do it', max_cost_usd: 2 }, error: null });
  expect(first[0]?.goalHash).toMatch(/^[0-9a-f]{12}$/);
  expect(first[1]?.error).toMatch(/^not valid JSON/);
  expect(first[2]?.error).toMatch(/^workflows: .*missing\.yaml/);

  writeJsonAtomic(join(dir, 'children.json'), childrenFileSchema, {
    schema_version: 1,
    children: first.map((s) => ({
      request_file: s.file,
      session_id: null,
      status: 'rejected' as const,
      reason: 'x',
      outcome: null,
      usage: null,
      requested_at: s.modifiedAt,
      finished_at: null,
      request_fingerprint: s.fingerprint,
    })),
  });
  expect(scanChildRequests(dir)).toEqual([]);
  const later = new Date(Date.now() + 5000);
  utimesSync(join(inbox, 'ok.json'), later, later);
  expect(scanChildRequests(dir).map((s) => s.file)).toEqual(['ok.json']);
  expect(scanChildRequests(join(dir, 'nope'))).toEqual([]);
});

test('the tree renderer: one line per session, statuses, costs, the active child, rejected requests', () => {
  const node = (over: Partial<SessionTreeNode>): SessionTreeNode => ({
    sessionId: 's',
    sessionDir: '/x',
    goal: null,
    status: 'running',
    stop: null,
    iterations: 1,
    cost: { own: 0.1, children: 0, total: 0.1 },
    activeChildSessionId: null,
    child: null,
    children: [],
    problem: null,
    ...over,
  });
  const child = (
    file: string,
    status: 'complete' | 'running' | 'rejected',
    over: Partial<SessionTreeNode> = {},
  ) =>
    node({
      sessionId: status === 'rejected' ? null : `id-${file}`,
      child: {
        requestFile: file,
        status,
        reason: status === 'rejected' ? 'goal: too short' : null,
        outcome: status === 'complete' ? 'control: done' : null,
        maxCostUsd: 0.5,
      },
      ...over,
    });
  const root = node({
    sessionId: 'root',
    cost: { own: 0.1, children: 0.3, total: 0.4 },
    activeChildSessionId: 'id-b.json',
    children: [
      child('a.json', 'complete', { children: [child('g.json', 'complete')] }),
      child('bad.json', 'rejected'),
      child('b.json', 'running', { status: 'paused' }),
    ],
  });
  expect(renderSessionTree(root)).toBe(
    [
      'root  running  ·  1 iteration  ·  $0.40 (own $0.10 + children $0.30)',
      '├─ a.json → id-a.json  complete (control: done)  ·  1 iteration  ·  $0.10  ·  budget $0.50',
      '│  └─ g.json → id-g.json  complete (control: done)  ·  1 iteration  ·  $0.10  ·  budget $0.50',
      '├─ bad.json  rejected: goal: too short',
      '└─ b.json → id-b.json  paused  ·  1 iteration  ·  $0.10  ·  budget $0.50  ·  ◀ active',
      '',
    ].join('\n'),
  );
});
