import type { CheckRun, Conditional, IssueComment, Review, ReviewComment } from '../github/api';
import { parseKeyword } from '../channel/keywords';
import type { IngressEvent } from './events';
import { checkKey, checkText, itemText, reviewCommentText, reviewText } from './event-text';
import { newLedger, type ItemLedger } from './poll-ledger';
import {
  POLLER_ACTOR,
  deliver,
  listedItem,
  pollerEvent,
  type PolledEventFields,
  type PollCycle,
} from './poll-cycle';
import { itemRef, routeItem } from './routing';

/** Per-item cursor the workflow carries between cycles (and across continueAsNew). */
export interface PolledItem {
  isPullRequest: boolean;
  /** The work item this item's events belong to, routed once (routing may cost API calls). */
  workItem: string | null;
  etags: Record<string, string>;
}

/** An open labelled item, as the listing shows it. */
export interface ListedItem {
  isPullRequest: boolean;
  labels: string[];
}

const CHECK_KEYS_KEPT = 200;

/** One item's part of a cycle: its cursor and ledger, both moved past what this cycle read. */
interface ItemPoll {
  cycle: PollCycle;
  number: number;
  item: PolledItem;
  ledger: ItemLedger;
  /** Its ledger was empty: what it already holds is history, which the session reads from the thread itself. */
  firstSight: boolean;
  event(fields: PolledEventFields): IngressEvent;
}

/**
 * Reads one open item's new comments (and, for a pull request, its reviews, review comments and check results)
 * past its ledger, delivers them, and stores the ledger moved past them. Returns the item's cursor for the next cycle.
 */
export async function pollItem(
  cycle: PollCycle,
  number: number,
  listed: ListedItem,
  known: PolledItem | undefined,
): Promise<PolledItem> {
  const subject = itemRef(cycle.repo, number);
  const item: PolledItem = known
    ? { ...known, etags: { ...known.etags } }
    : { isPullRequest: listed.isPullRequest, workItem: null, etags: {} };
  if (item.workItem === null) item.workItem = await routeListed(cycle, number, listed.isPullRequest);
  const workItem = item.workItem;
  const stored = cycle.deps.ledger.get(workItem, subject);
  const firstSight = stored === null;
  if (firstSight) item.etags = {}; // a reset cleared the ledger: read the thread again
  const at: ItemPoll = {
    cycle,
    number,
    item,
    ledger: stored ?? newLedger(cycle.now),
    firstSight,
    event: (fields) =>
      pollerEvent(cycle.repo, listedItem(number, listed.isPullRequest, listed.labels, 'open'), fields),
  };
  if (firstSight) {
    // with requireStartCommand off, a labelled item seen for the first time may spawn its session
    await deliver(
      cycle,
      at.event({
        kind: 'opened',
        key: `opened:${subject}`,
        actor: POLLER_ACTOR,
        text: itemText(listed.isPullRequest, number, 'is labelled for the-loop'),
        url: '',
        at: cycle.now,
      }),
    );
  }
  await pollComments(at);
  if (listed.isPullRequest) {
    await pollReviews(at);
    await pollReviewComments(at);
    await pollChecks(at);
  }
  await cycle.deps.ledger.put(workItem, subject, at.ledger);
  return item;
}

/** The work item a listed item's events go to; a listing carries no head branch or body, so routing asks. */
async function routeListed(cycle: PollCycle, number: number, isPullRequest: boolean): Promise<string> {
  const { deps, repo } = cycle;
  const route = await routeItem(
    repo,
    { number, isPullRequest, headRef: null, body: null },
    {
      recordedLink: (ref) => deps.knowledge.recordedLink(ref),
      closingIssues: (r, n) => deps.github.closingIssues(r, n),
      pullRequest: (r, n) => deps.github.getPullRequest(r, n),
    },
  );
  return route.workItem;
}

/** A listing the ledger reads past its last id: comments, reviews, review comments. */
interface Thread<T extends { id: number }> {
  /** Names the etag the listing answers with. */
  etag: 'comments' | 'reviews' | 'reviewComments';
  list(etag: string | undefined): Promise<Conditional<T[]>>;
  lastId: number;
  /** Which of what is new this cycle counts at all. */
  counts?(entry: T): boolean;
  /** Which of what is new is delivered: on first sight, none of it is unless said otherwise (it is history). */
  onFirstSight?(fresh: T[]): T[];
  event(entry: T): IngressEvent;
  /** Moves the ledger past the newest new entry. */
  advance(newest: T): void;
}

async function pollThread<T extends { id: number }>(at: ItemPoll, thread: Thread<T>): Promise<void> {
  const listing = await thread.list(at.item.etags[thread.etag]);
  if (!listing.modified) return;
  const fresh = newerThan(listing.data, thread.lastId).filter((entry) => thread.counts?.(entry) ?? true);
  const toDeliver = at.firstSight ? (thread.onFirstSight?.(fresh) ?? []) : fresh;
  for (const entry of toDeliver) await deliver(at.cycle, thread.event(entry));
  const newest = fresh[fresh.length - 1];
  if (newest) thread.advance(newest);
  if (listing.etag) at.item.etags[thread.etag] = listing.etag;
}

/** A `since` cursor moved past `newest`: a moved `since` changes the URL, so the next answer is one 200, then 304s. */
function past(since: string | null, newest: { id: number; updatedAt: string }) {
  return { lastId: newest.id, since: maxIso(since, newest.updatedAt) };
}

function pollComments(at: ItemPoll): Promise<void> {
  const { cycle, number, ledger } = at;
  return pollThread<IssueComment>(at, {
    etag: 'comments',
    list: (etag) => cycle.deps.github.listIssueComments(cycle.repo, number, ledger.comments.since, etag),
    lastId: ledger.comments.lastId,
    // only the newest, when it is a keyword: "label it, comment `the-loop start`" works without a webhook
    onFirstSight: (fresh) => fresh.slice(-1).filter((c) => parseKeyword(c.body) !== null),
    event: (c) =>
      at.event({
        kind: 'comment',
        key: `comment:${c.id}`,
        actor: c.user,
        text: c.body,
        url: c.url,
        at: c.createdAt,
      }),
    advance: (newest) => (ledger.comments = past(ledger.comments.since, newest)),
  });
}

function pollReviews(at: ItemPoll): Promise<void> {
  const { cycle, number, ledger } = at;
  return pollThread<Review>(at, {
    etag: 'reviews',
    list: (etag) => cycle.deps.github.listReviews(cycle.repo, number, etag),
    lastId: ledger.reviews.lastId,
    counts: (r) => r.state !== 'PENDING',
    event: (r) =>
      at.event({
        kind: 'review',
        key: `review:${r.id}`,
        actor: r.user,
        text: reviewText(r.state, r.body),
        url: r.url,
        at: r.submittedAt ?? new Date().toISOString(),
      }),
    advance: (newest) => (ledger.reviews.lastId = newest.id),
  });
}

function pollReviewComments(at: ItemPoll): Promise<void> {
  const { cycle, number, ledger } = at;
  return pollThread<ReviewComment>(at, {
    etag: 'reviewComments',
    list: (etag) =>
      cycle.deps.github.listReviewComments(cycle.repo, number, ledger.reviewComments.since, etag),
    lastId: ledger.reviewComments.lastId,
    event: (c) =>
      at.event({
        kind: 'review-comment',
        key: `review-comment:${c.id}`,
        actor: c.user,
        text: reviewCommentText(c.path, c.line, c.body),
        url: c.url,
        at: c.createdAt,
      }),
    advance: (newest) => (ledger.reviewComments = past(ledger.reviewComments.since, newest)),
  });
}

/** The check runs of the PR's current head, through its pull/<n>/head ref: no sha lookup needed. */
async function pollChecks(at: ItemPoll): Promise<void> {
  const { cycle, number, ledger } = at;
  const runs = await cycle.deps.github.listCheckRuns(cycle.repo, `pull/${number}/head`, at.item.etags.checks);
  if (!runs.modified) return;
  const seen = new Set(ledger.checks);
  for (const run of runs.data.filter((r: CheckRun) => r.status === 'completed')) {
    const key = checkKey(run.id, run.conclusion);
    if (seen.has(key)) continue;
    if (!at.firstSight) {
      const actor = { login: 'github-checks', type: 'Bot' };
      const text = checkText(run.name, run.conclusion);
      await deliver(cycle, at.event({ kind: 'check', key, actor, text, url: run.url, at: cycle.now }));
    }
    ledger.checks.push(key);
  }
  ledger.checks = ledger.checks.slice(-CHECK_KEYS_KEPT);
  if (runs.etag) at.item.etags.checks = runs.etag;
}

function maxIso(a: string | null, b: string): string {
  return a === null || b > a ? b : a;
}

/** What a listing holds past the last id already seen, oldest first. */
function newerThan<T extends { id: number }>(items: readonly T[], lastId: number): T[] {
  return items.filter((item) => item.id > lastId).sort((a, b) => a.id - b.id);
}
