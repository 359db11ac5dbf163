// What the board's screenshots show: a morning's worth of made-up sessions on two repositories of a made-up
// company. Pure data; seed-*.ts write it through the project's own writers. Every time is a fixed number of
// minutes before SCENE_AT, a fixed instant, so that a second run draws the same picture.
import type { Usage } from '../../src/session/schemas/usage';
import { DEFAULT_PROCESS_GRAPH, waitingDetails } from '../../src/config/process-graph';

export const SCENE_AT = Date.parse('2026-12-03T10:30:00Z');

/** The ISO time `minutes` before the scene's moment. */
export function ago(minutes: number): string {
  return new Date(SCENE_AT - minutes * 60_000).toISOString();
}

/** Plausible tokens for what `turns` turns cost (about Sonnet's prices; the board shows only the cost). */
export function usageFor(costUsd: number, turns: number): Usage {
  const tokens = (perUsd: number) => Math.round(costUsd * perUsd);
  return {
    input_tokens: tokens(2_000),
    output_tokens: tokens(12_000),
    cache_read_input_tokens: tokens(900_000),
    cache_creation_input_tokens: tokens(60_000),
    cost_usd: costUsd,
    num_turns: turns,
    duration_ms: turns * 240_000,
  };
}

export const TASK_QUEUE = 'the-loop';
/** The board's the-loop.yaml: a work item's budget, shown as `… / $5.00`. */
export const CONFIG = { temporal: { taskQueue: TASK_QUEUE }, budget: { workItem: 5 } };
export const HOST_QUEUE = 'the-loop.host.devbox';
export const TMUX_SOCKET = 'the-loop';

export interface WorkItemScene {
  ref: string;
  /** Where the work item is in the default process graph; null before its graph started. */
  node: string | null;
  registeredAgo: number;
  updatedAgo: number;
  /** The checkout its agent works in (not shown on the board; recorded as the host records it). */
  cwd: string;
  /** False while queued: no pane, no turn yet. */
  spawned: boolean;
  turns: number;
  costUsd: number;
  pullRequests: string[];
  waiting?: { reason: 'permission' | 'gate'; detail: string; sinceAgo: number };
  closed?: { ago: number; reason: string };
  /** The newest turns' replies, oldest first: the last one is the row's "Last turn". */
  replies: string[];
}

/** What the workflow records while the default graph waits at its gate. */
export const GATE_DETAIL = waitingDetails(DEFAULT_PROCESS_GRAPH, 'spec-approval');

/** The session whose own page is the second screenshot: its pane, its timeline. */
export const FEATURED = 'github:acme/storefront#412';

export const WORK_ITEMS: WorkItemScene[] = [
  {
    ref: FEATURED,
    node: 'implement',
    registeredAgo: 140,
    updatedAgo: 6,
    cwd: '/home/dev/src/storefront',
    spawned: true,
    turns: 4,
    costUsd: 1.84,
    pullRequests: [],
    // what the plugin's permission hook reports for a Bash prompt (src/worker/hosted-turns.ts promptText)
    waiting: {
      reason: 'permission',
      detail: 'permission to use Bash: npm run db:migrate -- --env staging',
      sinceAgo: 6,
    },
    replies: [
      [
        'Spec approved; starting on the implementation.',
        '',
        '- Added the `discount_codes` table (code, percent, `valid_until`, `max_uses`)',
        '- Wrote the migration `0042_discount_codes.sql` and its rollback',
      ].join('\n'),
      [
        'The cart applies a discount code at checkout.',
        '',
        '1. `applyDiscount()` checks the code, its expiry and its remaining uses',
        '2. The discount shows as its own line in the order summary',
        '3. Added 14 tests in `test/checkout/discount.test.ts`; all pass',
      ].join('\n'),
      [
        'Checkout tests pass; next, the migration on staging.',
        '',
        'I will apply it to **staging** to check it runs cleanly against real data before opening the PR.',
      ].join('\n'),
    ],
  },
  {
    ref: 'github:acme/payments-api#88',
    node: 'spec-approval',
    registeredAgo: 65,
    updatedAgo: 23,
    cwd: '/home/dev/src/payments-api',
    spawned: true,
    turns: 2,
    costUsd: 0.62,
    pullRequests: [],
    waiting: { reason: 'gate', detail: GATE_DETAIL, sinceAgo: 23 },
    replies: ['Spec ready: webhook retries with backoff and an idempotency key.'],
  },
  {
    ref: 'github:acme/storefront#415',
    node: 'implement',
    registeredAgo: 95,
    updatedAgo: 3,
    cwd: '/home/dev/src/storefront',
    spawned: true,
    turns: 7,
    costUsd: 2.37,
    pullRequests: ['github:acme/storefront#431'],
    replies: ['Totals round per line item now; 3 of 4 failing tests fixed.'],
  },
  {
    ref: 'github:acme/payments-api#91',
    node: 'review',
    registeredAgo: 180,
    updatedAgo: 11,
    cwd: '/home/dev/src/payments-api',
    spawned: true,
    turns: 9,
    costUsd: 3.1,
    pullRequests: [],
    replies: ['Review: a missing index and a race in the capture retry.'],
  },
  {
    ref: 'github:acme/storefront#417',
    node: 'spec',
    registeredAgo: 14,
    updatedAgo: 2,
    cwd: '/home/dev/src/storefront',
    spawned: true,
    turns: 1,
    costUsd: 0.31,
    pullRequests: [],
    replies: ['Reading how search ranks products before writing the spec.'],
  },
  {
    ref: 'github:acme/storefront#418',
    node: null,
    registeredAgo: 1,
    updatedAgo: 1,
    cwd: '/home/dev/src/storefront',
    spawned: false,
    turns: 0,
    costUsd: 0,
    pullRequests: [],
    replies: [],
  },
  {
    ref: 'github:acme/storefront#409',
    node: 'done',
    registeredAgo: 420,
    updatedAgo: 34,
    cwd: '/home/dev/src/storefront',
    spawned: true,
    turns: 12,
    costUsd: 4.12,
    pullRequests: ['github:acme/storefront#420'],
    closed: { ago: 34, reason: 'the issue was closed' },
    replies: ['Done: the PR is merged and the issue closed.'],
  },
  {
    ref: 'github:acme/payments-api#85',
    node: 'done',
    registeredAgo: 300,
    updatedAgo: 72,
    cwd: '/home/dev/src/payments-api',
    spawned: true,
    turns: 5,
    costUsd: 0.88,
    pullRequests: ['github:acme/payments-api#86'],
    closed: { ago: 72, reason: 'the issue was closed' },
    replies: ['Done: currency codes are checked against ISO 4217.'],
  },
];

/** A `loopy run` goal session in the directory the board runs in. */
export const GOAL = {
  goal: 'Make the flaky upload test in test/e2e/upload.test.ts deterministic',
  startedAgo: 48,
  updatedAgo: 4,
  /** Turns that ended; one more runs now. */
  ended: 3,
  costUsd: 0.95,
  replies: [
    'Plan: reproduce the flake under load, then find what the test waits on.',
    'Reproduced: 7 failures in 200 runs, a read before the upload is indexed.',
    'The test waits for the upload to be indexed; 200 of 200 runs pass.',
  ],
};

/**
 * The featured session's pane: Claude Code asking whether it may run the command the row asks about. A made-up
 * screen in the harness's style, printed into a real tmux pane that the board reads.
 */
export const PANE_SCREEN = [
  '● All checkout tests pass locally (14 new). Applying the migration to staging to check it runs',
  '  cleanly against real data before opening the pull request.',
  '',
  '● Bash(npm run db:migrate -- --env staging)',
  '  └  Running…',
  '',
  '╭──────────────────────────────────────────────────────────────────────────╮',
  '│ Bash command                                                             │',
  '│                                                                          │',
  '│   npm run db:migrate -- --env staging                                    │',
  '│   Apply migration 0042_discount_codes to the staging database            │',
  '│                                                                          │',
  '│ Do you want to proceed?                                                  │',
  '│ ❯ 1. Yes                                                                 │',
  "│   2. Yes, and don't ask again for npm run db:migrate commands            │",
  '│   3. No, and tell Claude what to do differently (esc)                    │',
  '╰──────────────────────────────────────────────────────────────────────────╯',
].join('\n');
