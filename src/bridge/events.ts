import type { z } from 'zod';
import type { Actor, RepoRef } from '../github/api';
import { checkKey, checkText, itemText, reviewCommentText, reviewText } from './event-text';
import {
  addedLabel,
  checkRunPayload,
  issueCommentPayload,
  issuesPayload,
  labelNames,
  pullRequestPayload,
  repoOf,
  reviewCommentPayload,
  reviewPayload,
  toActor,
  type BasePayload,
  type IssuePayload,
  type PullRequestPayload,
  type UserPayload,
} from './webhook-payload';

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

function issueItem(i: IssuePayload): IngressItem {
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

function pullItem(p: PullRequestPayload): IngressItem {
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

/** What every event of one delivery shares. */
interface Delivery {
  eventName: string;
  deliveryId: string;
  /** For a repository whose payload names no URL of its own. */
  host: string;
  /** For an event whose payload says no time. */
  now: string;
}

/** An event's own fields: the delivery, and the payload's repository and sender, give the rest. */
type OwnFields = Omit<IngressEvent, 'deliveryId' | 'source' | 'repo' | 'actor'>;

function webhookEvent(d: Delivery, payload: BasePayload, own: OwnFields): IngressEvent {
  return {
    ...own,
    deliveryId: d.deliveryId,
    source: 'webhook',
    repo: repoOf(payload, d.host),
    actor: toActor(payload.sender),
  };
}

/** A family's payload checked first: one without the fields its event promises is ignored, never thrown. */
function family<T>(schema: z.ZodType<T>, toEvents: (payload: T, d: Delivery) => NormalizeResult) {
  return (payload: unknown, d: Delivery): NormalizeResult => {
    const parsed = schema.safeParse(payload);
    return parsed.success ? toEvents(parsed.data, d) : { ignored: `malformed ${d.eventName} payload` };
  };
}

interface CreatedComment {
  id: number;
  user?: UserPayload;
  html_url: string;
  created_at: string;
}

/** A comment someone created, on the thread or on a line of the diff; edits and deletions are not acted on. */
function createdComment(
  p: BasePayload,
  d: Delivery,
  kind: 'comment' | 'review-comment',
  item: IngressItem,
  comment: CreatedComment,
  text: string,
): NormalizeResult {
  if (p.action !== 'created') return { ignored: `${d.eventName} ${p.action ?? '?'}` };
  const event = webhookEvent(d, p, {
    key: `${kind}:${comment.id}`,
    kind,
    item,
    author: toActor(comment.user),
    text,
    url: comment.html_url,
    at: comment.created_at || d.now,
  });
  return { events: [event] };
}

const LIFECYCLE_ACTIONS: readonly string[] = ['closed', 'reopened', 'opened', 'labeled'];

/** An issue or pull request opened, closed, reopened or labelled: `what` happened to it, in a word. */
function lifecycle(
  p: BasePayload & { label?: Parameters<typeof addedLabel>[0] },
  d: Delivery,
  item: IngressItem,
  text: (action: string) => string,
): NormalizeResult {
  const action = p.action ?? '';
  if (!LIFECYCLE_ACTIONS.includes(action)) return { ignored: `${d.eventName} ${action}` };
  const event = webhookEvent(d, p, {
    key: `${action}:${d.deliveryId}`,
    kind: action as IngressKind,
    item,
    text: text(action),
    url: item.url,
    at: d.now,
    ...addedLabel(p.label),
  });
  return { events: [event] };
}

const issueComment = family(issueCommentPayload, (p, d) =>
  createdComment(p, d, 'comment', issueItem(p.issue), p.comment, p.comment.body ?? ''),
);

const reviewComment = family(reviewCommentPayload, (p, d) => {
  const c = p.comment;
  return createdComment(
    p,
    d,
    'review-comment',
    pullItem(p.pull_request),
    c,
    reviewCommentText(c.path, c.line, c.body),
  );
});

const issues = family(issuesPayload, (p, d) => {
  const item = issueItem(p.issue);
  return lifecycle(p, d, item, (action) => itemText(false, item.number, action));
});

const pullRequest = family(pullRequestPayload, (p, d) => {
  const item = pullItem(p.pull_request);
  return lifecycle(p, d, item, (action) =>
    itemText(true, item.number, action === 'closed' && item.merged ? 'merged' : action),
  );
});

const review = family(reviewPayload, (p, d) => {
  if (p.action !== 'submitted') return { ignored: `${d.eventName} ${p.action ?? '?'}` };
  const r = p.review;
  const event = webhookEvent(d, p, {
    key: `review:${r.id}`,
    kind: 'review',
    item: pullItem(p.pull_request),
    author: toActor(r.user),
    text: reviewText(r.state.toUpperCase(), r.body),
    url: r.html_url,
    at: r.submitted_at ?? d.now,
  });
  return { events: [event] };
});

/** A completed check run: one event for each pull request it ran for (the payload says little else of them). */
const checkRun = family(checkRunPayload, (p, d) => {
  const run = p.check_run;
  if (p.action !== 'completed' || run.status !== 'completed')
    return { ignored: `${d.eventName} ${p.action ?? '?'}` };
  if (run.pull_requests.length === 0) return { ignored: 'check_run on no pull request' };
  return {
    events: run.pull_requests.map((pr) =>
      webhookEvent(d, p, {
        key: checkKey(run.id, run.conclusion),
        kind: 'check',
        item: {
          number: pr.number,
          isPullRequest: true,
          state: 'open',
          labels: null,
          title: '',
          url: '',
          headRef: pr.head?.ref ?? null,
          body: null,
          merged: false,
        },
        text: checkText(run.name, run.conclusion),
        url: run.html_url ?? '',
        at: run.completed_at ?? d.now,
      }),
    ),
  };
});

/** The event families the bridge acts on, by GitHub's event name (X-GitHub-Event). */
const FAMILIES = new Map<string, (payload: unknown, d: Delivery) => NormalizeResult>([
  ['issue_comment', issueComment],
  ['issues', issues],
  ['pull_request', pullRequest],
  ['pull_request_review', review],
  ['pull_request_review_comment', reviewComment],
  ['check_run', checkRun],
]);

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
  if (eventName === 'ping') return { ignored: 'ping' };
  const toEvents = FAMILIES.get(eventName);
  if (!toEvents) return { ignored: `event ${eventName} is not used` };
  return toEvents(payload, { eventName, deliveryId, host, now: new Date().toISOString() });
}
