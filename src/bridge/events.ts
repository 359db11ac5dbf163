import { z } from 'zod';
import type { Actor, RepoRef } from '../github/api';

/**
 * One GitHub happening, in the shape both ingress paths (the webhook receiver and the poller) hand to the
 * same routing and decision code. Built from a webhook payload here, or from REST listings by the poller.
 */
export type IngressKind =
  'comment' | 'review' | 'review-comment' | 'check' | 'closed' | 'reopened' | 'opened' | 'labeled';

export interface IngressItem {
  number: number;
  isPullRequest: boolean;
  state: 'open' | 'closed';
  /** Label names as the payload carries them: label gating reads these, with no API call. */
  labels: string[] | null;
  title: string;
  url: string;
  /** Pull requests: the head branch and body, when the payload carries them (routing uses them). */
  headRef: string | null;
  body: string | null;
  merged: boolean;
}

export interface IngressEvent {
  /** Stable across both ingress paths, so a session can drop what it already got: `comment:123`… */
  key: string;
  /** X-GitHub-Delivery for webhooks; the key for the poller. */
  deliveryId: string;
  source: 'webhook' | 'poller';
  kind: IngressKind;
  repo: RepoRef;
  item: IngressItem;
  /**
   * Who triggered it: a webhook's `sender`, or the author a REST listing names. Authorization follows this, never
   * the comment's or review's `user`, which on an edit (or a forged payload) names someone else.
   */
  actor: Actor;
  /** Who wrote the comment or review a webhook carries, shown beside `actor` when the two differ. */
  author?: Actor;
  /** Comment or review text, or a one-line summary (check results, closures). */
  text: string;
  url: string;
  at: string;
  /** A `labeled` event: the label it added (a gate may be answered by one). */
  label?: string;
}

const user = z.looseObject({ login: z.string(), type: z.string().optional() }).nullable().optional();
const label = z.union([z.string(), z.looseObject({ name: z.string() })]);
const repository = z.looseObject({
  name: z.string(),
  owner: z.looseObject({ login: z.string() }),
  html_url: z.string().optional(),
});
const issue = z.looseObject({
  number: z.number().int().positive(),
  title: z.string().default(''),
  body: z.string().nullable().optional(),
  state: z.string().optional(),
  labels: z.array(label).optional(),
  html_url: z.string().default(''),
  pull_request: z.looseObject({ merged_at: z.string().nullable().optional() }).optional(),
});
const pullRequest = z.looseObject({
  number: z.number().int().positive(),
  title: z.string().default(''),
  body: z.string().nullable().optional(),
  state: z.string().optional(),
  merged: z.boolean().nullable().optional(),
  merged_at: z.string().nullable().optional(),
  labels: z.array(label).optional(),
  html_url: z.string().default(''),
  head: z.looseObject({ ref: z.string() }).optional(),
});
const base = z.looseObject({ action: z.string().optional(), repository, sender: user });

const issueCommentPayload = base.extend({
  issue,
  comment: z.looseObject({
    id: z.number(),
    body: z.string().nullable().default(''),
    user,
    html_url: z.string().default(''),
    created_at: z.string().default(''),
  }),
});
const issuesPayload = base.extend({ issue, label: label.optional() });
const pullRequestPayload = base.extend({ pull_request: pullRequest, label: label.optional() });
const reviewPayload = base.extend({
  pull_request: pullRequest,
  review: z.looseObject({
    id: z.number(),
    body: z.string().nullable().default(''),
    state: z.string().default(''),
    user,
    html_url: z.string().default(''),
    submitted_at: z.string().nullable().optional(),
  }),
});
const reviewCommentPayload = base.extend({
  pull_request: pullRequest,
  comment: z.looseObject({
    id: z.number(),
    body: z.string().default(''),
    path: z.string().default(''),
    line: z.number().nullable().optional(),
    user,
    html_url: z.string().default(''),
    created_at: z.string().default(''),
  }),
});
const checkRunPayload = base.extend({
  check_run: z.looseObject({
    id: z.number(),
    name: z.string(),
    status: z.string(),
    conclusion: z.string().nullable().optional(),
    html_url: z.string().nullable().optional(),
    completed_at: z.string().nullable().optional(),
    pull_requests: z.array(
      z.looseObject({
        number: z.number().int().positive(),
        head: z.looseObject({ ref: z.string() }).optional(),
      }),
    ),
  }),
});

/** The label a `labeled` payload added, as the event's optional `label`. */
function addedLabel(added: z.infer<typeof label> | undefined): { label?: string } {
  if (added === undefined) return {};
  return { label: typeof added === 'string' ? added : added.name };
}

function labelNames(labels: z.infer<typeof label>[] | undefined): string[] | null {
  if (!labels) return null;
  return labels.map((l) => (typeof l === 'string' ? l : l.name));
}

/** A missing user is GitHub's placeholder `ghost`, whom authorization never trusts. */
function toActor(u: z.infer<typeof user>): Actor {
  return { login: u?.login ?? 'ghost', type: u?.type ?? 'User' };
}

/** The host comes from the repository's own URL (github.com, or a GitHub Enterprise host). */
function repoOf(payload: z.infer<typeof base>, fallbackHost: string): RepoRef {
  let host = fallbackHost;
  try {
    if (payload.repository.html_url) host = new URL(payload.repository.html_url).host.toLowerCase();
  } catch {
    // keep the fallback
  }
  return {
    host,
    owner: payload.repository.owner.login.toLowerCase(),
    repo: payload.repository.name.toLowerCase(),
  };
}

function issueItem(i: z.infer<typeof issue>): IngressItem {
  return {
    number: i.number,
    isPullRequest: i.pull_request !== undefined,
    state: i.state === 'closed' ? 'closed' : 'open',
    labels: labelNames(i.labels),
    title: i.title,
    url: i.html_url,
    headRef: null,
    body: i.body ?? null,
    merged: Boolean(i.pull_request?.merged_at),
  };
}

function pullItem(p: z.infer<typeof pullRequest>): IngressItem {
  return {
    number: p.number,
    isPullRequest: true,
    state: p.state === 'closed' ? 'closed' : 'open',
    labels: labelNames(p.labels),
    title: p.title,
    url: p.html_url,
    headRef: p.head?.ref ?? null,
    body: p.body ?? null,
    merged: Boolean(p.merged ?? p.merged_at),
  };
}

export type NormalizeResult = { events: IngressEvent[] } | { ignored: string };

/**
 * Webhook (event name, parsed payload) → ingress events. Anything the bridge does not act on is `ignored`
 * with a reason; a payload that does not have the fields its event promises is ignored too, never thrown.
 */
export function normalizeWebhook(
  eventName: string,
  deliveryId: string,
  payload: unknown,
  host = 'github.com',
): NormalizeResult {
  const common = { deliveryId, source: 'webhook' as const };
  const now = new Date().toISOString();
  switch (eventName) {
    case 'issue_comment': {
      const p = issueCommentPayload.safeParse(payload);
      if (!p.success) return { ignored: 'malformed issue_comment payload' };
      if (p.data.action !== 'created') return { ignored: `issue_comment ${p.data.action ?? '?'}` };
      const c = p.data.comment;
      return {
        events: [
          {
            ...common,
            key: `comment:${c.id}`,
            kind: 'comment',
            repo: repoOf(p.data, host),
            item: issueItem(p.data.issue),
            actor: toActor(p.data.sender),
            author: toActor(c.user),
            text: c.body ?? '',
            url: c.html_url,
            at: c.created_at || now,
          },
        ],
      };
    }
    case 'issues': {
      const p = issuesPayload.safeParse(payload);
      if (!p.success) return { ignored: 'malformed issues payload' };
      const action = p.data.action ?? '';
      if (!['closed', 'reopened', 'opened', 'labeled'].includes(action))
        return { ignored: `issues ${action}` };
      const item = issueItem(p.data.issue);
      return {
        events: [
          {
            ...common,
            key: `${action}:${deliveryId}`,
            kind: action as IngressKind,
            repo: repoOf(p.data, host),
            item,
            actor: toActor(p.data.sender),
            text: `issue #${item.number} ${action}`,
            url: item.url,
            at: now,
            ...addedLabel(p.data.label),
          },
        ],
      };
    }
    case 'pull_request': {
      const p = pullRequestPayload.safeParse(payload);
      if (!p.success) return { ignored: 'malformed pull_request payload' };
      const action = p.data.action ?? '';
      if (!['closed', 'reopened', 'opened', 'labeled'].includes(action))
        return { ignored: `pull_request ${action}` };
      const item = pullItem(p.data.pull_request);
      const verb = action === 'closed' && item.merged ? 'merged' : action;
      return {
        events: [
          {
            ...common,
            key: `${action}:${deliveryId}`,
            kind: action as IngressKind,
            repo: repoOf(p.data, host),
            item,
            actor: toActor(p.data.sender),
            text: `pull request #${item.number} ${verb}`,
            url: item.url,
            at: now,
            ...addedLabel(p.data.label),
          },
        ],
      };
    }
    case 'pull_request_review': {
      const p = reviewPayload.safeParse(payload);
      if (!p.success) return { ignored: 'malformed pull_request_review payload' };
      if (p.data.action !== 'submitted') return { ignored: `pull_request_review ${p.data.action ?? '?'}` };
      const r = p.data.review;
      return {
        events: [
          {
            ...common,
            key: `review:${r.id}`,
            kind: 'review',
            repo: repoOf(p.data, host),
            item: pullItem(p.data.pull_request),
            actor: toActor(p.data.sender),
            author: toActor(r.user),
            text: `${r.state.toUpperCase()}${r.body ? `: ${r.body}` : ''}`,
            url: r.html_url,
            at: r.submitted_at ?? now,
          },
        ],
      };
    }
    case 'pull_request_review_comment': {
      const p = reviewCommentPayload.safeParse(payload);
      if (!p.success) return { ignored: 'malformed pull_request_review_comment payload' };
      if (p.data.action !== 'created')
        return { ignored: `pull_request_review_comment ${p.data.action ?? '?'}` };
      const c = p.data.comment;
      const where = c.path ? ` (${c.path}${c.line ? `:${c.line}` : ''})` : '';
      return {
        events: [
          {
            ...common,
            key: `review-comment:${c.id}`,
            kind: 'review-comment',
            repo: repoOf(p.data, host),
            item: pullItem(p.data.pull_request),
            actor: toActor(p.data.sender),
            author: toActor(c.user),
            text: `${where ? `${where.trim()} ` : ''}${c.body}`,
            url: c.html_url,
            at: c.created_at || now,
          },
        ],
      };
    }
    case 'check_run': {
      const p = checkRunPayload.safeParse(payload);
      if (!p.success) return { ignored: 'malformed check_run payload' };
      const run = p.data.check_run;
      if (p.data.action !== 'completed' || run.status !== 'completed')
        return { ignored: `check_run ${p.data.action ?? '?'}` };
      if (run.pull_requests.length === 0) return { ignored: 'check_run on no pull request' };
      const conclusion = run.conclusion ?? 'unknown';
      return {
        events: run.pull_requests.map((pr) => ({
          ...common,
          key: `check:${run.id}:${conclusion}`,
          kind: 'check' as const,
          repo: repoOf(p.data, host),
          item: {
            number: pr.number,
            isPullRequest: true,
            state: 'open' as const,
            labels: null,
            title: '',
            url: '',
            headRef: pr.head?.ref ?? null,
            body: null,
            merged: false,
          },
          actor: toActor(p.data.sender),
          text: `check ${run.name}: ${conclusion}`,
          url: run.html_url ?? '',
          at: run.completed_at ?? now,
        })),
      };
    }
    case 'ping':
      return { ignored: 'ping' };
    default:
      return { ignored: `event ${eventName} is not used` };
  }
}
