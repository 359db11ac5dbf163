import type { Conditional, ItemSummary, RepoRef } from '../github/api';
import { countedGitHub, type RequestTally } from './counted-github';
import type { IngressOutcome } from './ingress';
import { POLLER_ACTOR, deliver, listedItem, pollerEvent, type PollCycle, type PollDeps } from './poll-cycle';
import { itemText } from './event-text';
import { pollItem, type ListedItem, type PolledItem } from './poll-item';
import { itemRef } from './routing';

/**
 * One poll cycle of one repository. Everything is a conditional request against ETags the poller workflow
 * carries, so a cycle with nothing new costs only 304s. New comments, reviews, review comments and check results
 * past the poll ledger go through the same `ingest` as webhook deliveries. Items that left the labelled open
 * listing are confirmed upstream before their session is auto-closed.
 */

export interface RepoPollState {
  listingEtag: string | null;
  items: Record<string, PolledItem>;
}

export interface PollCycleResult {
  state: RepoPollState;
  listed: number;
  delivered: IngressOutcome[];
  closed: string[];
  requests: RequestTally;
}

export async function pollRepositoryOnce(
  repo: RepoRef,
  previous: RepoPollState,
  deps: PollDeps,
): Promise<PollCycleResult> {
  const tally: RequestTally = { total: 0, notModified: 0 };
  const github = countedGitHub(deps.github, tally);
  const cycle: PollCycle = { repo, deps: { ...deps, github }, now: new Date().toISOString(), delivered: [] };
  const labels = deps.config.routing.autoExecuteLabels;
  const state: RepoPollState = { listingEtag: previous.listingEtag, items: { ...previous.items } };

  const listing = await github.listOpenLabelledItems(repo, labels, previous.listingEtag ?? undefined);
  const open = openItems(listing, previous, labels);
  let closed: string[] = [];
  if (listing.modified) {
    closed = await closeDeparted(cycle, previous, open, state);
    state.listingEtag = listing.etag;
  }
  for (const [number, listed] of open) {
    state.items[String(number)] = await pollItem(cycle, number, listed, state.items[String(number)]);
  }
  return { state, listed: open.size, delivered: cycle.delivered, closed, requests: tally };
}

/** The open labelled items: the listing's, or when it did not change (a 304), the ones the last cycle polled. */
function openItems(
  listing: Conditional<ItemSummary[]>,
  previous: RepoPollState,
  labels: string[],
): Map<number, ListedItem> {
  const open = new Map<number, ListedItem>();
  if (listing.modified) {
    for (const item of listing.data)
      open.set(item.number, { isPullRequest: item.isPullRequest, labels: item.labels });
  } else {
    for (const [n, item] of Object.entries(previous.items))
      open.set(Number(n), { isPullRequest: item.isPullRequest, labels });
  }
  return open;
}

/**
 * Items that left the open listing are no longer polled; the ones upstream confirms really ended (closed,
 * deleted or transferred, not merely unlabelled) are delivered as closed. Returns those.
 */
async function closeDeparted(
  cycle: PollCycle,
  previous: RepoPollState,
  open: Map<number, ListedItem>,
  state: RepoPollState,
): Promise<string[]> {
  const { repo, deps } = cycle;
  const closed: string[] = [];
  for (const [n, item] of Object.entries(previous.items)) {
    const number = Number(n);
    if (open.has(number)) continue;
    const upstream = await deps.github.getItemState(repo, number);
    delete state.items[n];
    if (upstream && upstream.state === 'open') continue; // a label was removed: no longer polled, not ended
    const subject = itemRef(repo, number);
    const merged = upstream?.merged ?? false;
    const ended = upstream ? (upstream.merged ? 'merged' : 'closed') : 'deleted or transferred';
    const event = pollerEvent(
      repo,
      listedItem(number, item.isPullRequest, upstream?.labels ?? null, 'closed', merged),
      {
        kind: 'closed',
        key: `closed:${subject}`,
        actor: POLLER_ACTOR,
        text: itemText(item.isPullRequest, number, ended),
        url: '',
        at: cycle.now,
      },
    );
    await deliver(cycle, event);
    closed.push(subject);
  }
  return closed;
}
