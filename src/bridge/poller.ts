import { z } from 'zod';
import type {
  CheckRun,
  Conditional,
  GitHubClient,
  IssueComment,
  ItemState,
  RepoRef,
  Review,
  ReviewComment,
} from '../github/api';
import type { IngressEvent, IngressItem } from './events';
import { ingest, type IngressDeps, type IngressOutcome } from './ingress';
import { parseKeyword } from '../channel/keywords';
import { itemRef, routeItem } from './routing';

/**
 * One poll cycle of one repository. Everything is a conditional request against ETags the poller workflow
 * carries, so a cycle with nothing new costs only 304s. New comments, reviews, review comments and check results
 * past the poll ledger go through the same `ingest` as webhook deliveries. Items that left the labelled open
 * listing are confirmed upstream before their session is auto-closed.
 */

/** Per-item cursor the workflow carries between cycles (and across continueAsNew). */
export interface PolledItem {
  isPullRequest: boolean;
  /** The work item this item's events belong to, routed once (routing may cost API calls). */
  workItem: string | null;
  etags: Record<string, string>;
}

export interface RepoPollState {
  listingEtag: string | null;
  items: Record<string, PolledItem>;
}

/** The ledger of one item (an issue or PR), kept in its work item's portable record, `poll.items[<ref>]`. */
export const itemLedgerSchema = z.object({
  comments: z.object({ lastId: z.number(), since: z.string().nullable() }),
  reviews: z.object({ lastId: z.number() }),
  reviewComments: z.object({ lastId: z.number(), since: z.string().nullable() }),
  /** Keys of check results already delivered (`check:<id>:<conclusion>`), newest last, bounded. */
  checks: z.array(z.string()),
  firstSeenAt: z.string(),
});
export type ItemLedger = z.infer<typeof itemLedgerSchema>;

/** Where poll ledgers live: the work-item layer's portable record (`poll` section). */
export interface PollLedgerStore {
  get(workItem: string, subject: string): ItemLedger | null;
  put(workItem: string, subject: string, ledger: ItemLedger): void | Promise<void>;
}

export interface PollCycleResult {
  state: RepoPollState;
  listed: number;
  delivered: IngressOutcome[];
  closed: string[];
  requests: { total: number; notModified: number };
}

const CHECK_KEYS_KEPT = 200;

export interface PollDeps extends IngressDeps {
  ledger: PollLedgerStore;
}

function counted(github: GitHubClient, tally: { total: number; notModified: number }): GitHubClient {
  const wrap =
    <A extends unknown[], T>(fn: (...args: A) => Promise<Conditional<T>>) =>
    async (...args: A): Promise<Conditional<T>> => {
      tally.total++;
      const result = await fn(...args);
      if (!result.modified) tally.notModified++;
      return result;
    };
  const plain =
    <A extends unknown[], T>(fn: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      tally.total++;
      return fn(...args);
    };
  return {
    ...github,
    listOpenLabelledItems: wrap(github.listOpenLabelledItems.bind(github)),
    listIssueComments: wrap(github.listIssueComments.bind(github)),
    listReviews: wrap(github.listReviews.bind(github)),
    listReviewComments: wrap(github.listReviewComments.bind(github)),
    listCheckRuns: wrap(github.listCheckRuns.bind(github)),
    getItemState: plain(github.getItemState.bind(github)),
    getPullRequest: plain(github.getPullRequest.bind(github)),
    closingIssues: plain(github.closingIssues.bind(github)),
    getPermission: plain(github.getPermission.bind(github)),
  };
}

function itemOf(
  number: number,
  isPullRequest: boolean,
  labels: string[] | null,
  state: 'open' | 'closed',
  merged = false,
): IngressItem {
  return { number, isPullRequest, state, labels, title: '', url: '', headRef: null, body: null, merged };
}

export async function pollRepositoryOnce(
  repo: RepoRef,
  previous: RepoPollState,
  deps: PollDeps,
): Promise<PollCycleResult> {
  const tally = { total: 0, notModified: 0 };
  const github = counted(deps.github, tally);
  const ingressDeps: IngressDeps = { ...deps, github };
  const labels = deps.config.routing.autoExecuteLabels;
  const state: RepoPollState = { listingEtag: previous.listingEtag, items: { ...previous.items } };
  const delivered: IngressOutcome[] = [];
  const closed: string[] = [];
  const now = new Date().toISOString();

  const listing = await github.listOpenLabelledItems(repo, labels, previous.listingEtag ?? undefined);
  const open = new Map<number, { isPullRequest: boolean; labels: string[] }>();
  if (listing.modified) {
    for (const item of listing.data)
      open.set(item.number, { isPullRequest: item.isPullRequest, labels: item.labels });
  } else {
    for (const [n, item] of Object.entries(previous.items))
      open.set(Number(n), { isPullRequest: item.isPullRequest, labels });
  }

  // Items that left the open listing: confirm upstream that they really ended before closing anything.
  if (listing.modified) {
    for (const [n, item] of Object.entries(previous.items)) {
      const number = Number(n);
      if (open.has(number)) continue;
      const upstream: ItemState | null = await github.getItemState(repo, number);
      delete state.items[n];
      if (upstream && upstream.state === 'open') continue; // a label was removed: no longer polled, not ended
      const subject = itemRef(repo, number);
      const event: IngressEvent = {
        key: `closed:${subject}`,
        deliveryId: `poll:closed:${subject}`,
        source: 'poller',
        kind: 'closed',
        repo,
        item: itemOf(
          number,
          item.isPullRequest,
          upstream?.labels ?? null,
          'closed',
          upstream?.merged ?? false,
        ),
        actor: { login: 'the-loop-poller', type: 'Bot' },
        text: `${item.isPullRequest ? 'pull request' : 'issue'} #${number} ${upstream ? (upstream.merged ? 'merged' : 'closed') : 'deleted or transferred'}`,
        url: '',
        at: now,
      };
      delivered.push(await ingest(event, ingressDeps));
      closed.push(subject);
    }
    state.listingEtag = listing.etag;
  }

  for (const [number, summary] of open) {
    const subject = itemRef(repo, number);
    const known = state.items[String(number)];
    const item: PolledItem = known
      ? { ...known, etags: { ...known.etags } }
      : { isPullRequest: summary.isPullRequest, workItem: null, etags: {} };
    if (item.workItem === null) {
      item.workItem = (
        await routeItem(
          repo,
          { number, isPullRequest: summary.isPullRequest, headRef: null, body: null },
          {
            recordedLink: (ref) => deps.knowledge.recordedLink(ref),
            closingIssues: (r, n) => github.closingIssues(r, n),
            pullRequest: (r, n) => github.getPullRequest(r, n),
          },
        )
      ).workItem;
    }
    const workItem = item.workItem;
    let ledger = deps.ledger.get(workItem, subject);
    const firstSight = ledger === null;
    if (firstSight) item.etags = {}; // a reset cleared the ledger: read the thread again
    const current: ItemLedger = ledger ?? {
      comments: { lastId: 0, since: null },
      reviews: { lastId: 0 },
      reviewComments: { lastId: 0, since: null },
      checks: [],
      firstSeenAt: now,
    };
    const base = (
      kind: IngressEvent['kind'],
      key: string,
      actor: { login: string; type: string },
      text: string,
      url: string,
      at: string,
    ): IngressEvent => ({
      key,
      deliveryId: `poll:${key}`,
      source: 'poller',
      kind,
      repo,
      item: itemOf(number, summary.isPullRequest, summary.labels, 'open'),
      actor,
      text,
      url,
      at,
    });
    const deliver = async (event: IngressEvent) => delivered.push(await ingest(event, ingressDeps));

    if (firstSight) {
      // with requireStartCommand off, a labelled item seen for the first time may spawn its session
      await deliver(
        base(
          'opened',
          `opened:${subject}`,
          { login: 'the-loop-poller', type: 'Bot' },
          `${summary.isPullRequest ? 'pull request' : 'issue'} #${number} is labelled for the-loop`,
          '',
          now,
        ),
      );
    }

    // Comments. On first sight the history is not replayed (the session reads the thread itself); only the
    // newest comment counts, so that "label it, comment `the-loop start`" works without a webhook.
    const comments = await github.listIssueComments(
      repo,
      number,
      current.comments.since,
      item.etags.comments,
    );
    if (comments.modified) {
      const fresh = newerThan(comments.data, current.comments.lastId);
      const toDeliver: IssueComment[] = firstSight
        ? fresh.slice(-1).filter((c) => parseKeyword(c.body) !== null)
        : fresh;
      for (const c of toDeliver)
        await deliver(base('comment', `comment:${c.id}`, c.user, c.body, c.url, c.createdAt));
      const newest = fresh[fresh.length - 1];
      if (newest)
        current.comments = { lastId: newest.id, since: maxIso(current.comments.since, newest.updatedAt) };
      // a moved `since` changes the URL: the next answer is one 200 (with only the newest comment), then 304s
      if (comments.etag) item.etags.comments = comments.etag;
    }

    if (summary.isPullRequest) {
      const reviews = await github.listReviews(repo, number, item.etags.reviews);
      if (reviews.modified) {
        const fresh = newerThan(reviews.data, current.reviews.lastId).filter((r) => r.state !== 'PENDING');
        if (!firstSight) for (const r of fresh) await deliver(reviewEvent(base, r));
        const newest = fresh[fresh.length - 1];
        if (newest) current.reviews.lastId = newest.id;
        if (reviews.etag) item.etags.reviews = reviews.etag;
      }
      const rc = await github.listReviewComments(
        repo,
        number,
        current.reviewComments.since,
        item.etags.reviewComments,
      );
      if (rc.modified) {
        const fresh = newerThan(rc.data, current.reviewComments.lastId);
        if (!firstSight) for (const c of fresh) await deliver(reviewCommentEvent(base, c));
        const newest = fresh[fresh.length - 1];
        if (newest)
          current.reviewComments = {
            lastId: newest.id,
            since: maxIso(current.reviewComments.since, newest.updatedAt),
          };
        if (rc.etag) item.etags.reviewComments = rc.etag;
      }
      // the check runs of the PR's current head, through its pull/<n>/head ref: no sha lookup needed
      const runs = await github.listCheckRuns(repo, `pull/${number}/head`, item.etags.checks);
      if (runs.modified) {
        const seen = new Set(current.checks);
        for (const run of runs.data.filter((r) => r.status === 'completed')) {
          const key = checkKey(run);
          if (seen.has(key)) continue;
          if (!firstSight)
            await deliver(
              base(
                'check',
                key,
                { login: 'github-checks', type: 'Bot' },
                `check ${run.name}: ${run.conclusion ?? 'unknown'}`,
                run.url,
                now,
              ),
            );
          current.checks.push(key);
        }
        current.checks = current.checks.slice(-CHECK_KEYS_KEPT);
        if (runs.etag) item.etags.checks = runs.etag;
      }
    }

    ledger = current;
    await deps.ledger.put(workItem, subject, ledger);
    state.items[String(number)] = item;
  }

  return { state, listed: open.size, delivered, closed, requests: tally };
}

function checkKey(run: CheckRun): string {
  return `check:${run.id}:${run.conclusion ?? 'unknown'}`;
}

function maxIso(a: string | null, b: string): string {
  return a === null || b > a ? b : a;
}

type Base = (
  kind: IngressEvent['kind'],
  key: string,
  actor: { login: string; type: string },
  text: string,
  url: string,
  at: string,
) => IngressEvent;

function reviewEvent(base: Base, r: Review): IngressEvent {
  return base(
    'review',
    `review:${r.id}`,
    r.user,
    `${r.state}${r.body ? `: ${r.body}` : ''}`,
    r.url,
    r.submittedAt ?? new Date().toISOString(),
  );
}

function reviewCommentEvent(base: Base, c: ReviewComment): IngressEvent {
  const where = c.path ? `(${c.path}${c.line ? `:${c.line}` : ''}) ` : '';
  return base('review-comment', `review-comment:${c.id}`, c.user, `${where}${c.body}`, c.url, c.createdAt);
}

/** What a listing holds past the last id already seen, oldest first. */
function newerThan<T extends { id: number }>(items: readonly T[], lastId: number): T[] {
  return items.filter((item) => item.id > lastId).sort((a, b) => a.id - b.id);
}
