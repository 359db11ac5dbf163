import type { Actor, RepoRef } from '../github/api';
import type { IngressEvent, IngressItem } from './events';
import { ingest, type IngressDeps, type IngressOutcome } from './ingress';
import type { PollLedgerStore } from './poll-ledger';

export interface PollDeps extends IngressDeps {
  ledger: PollLedgerStore;
}

/** What every step of one repository's poll cycle shares. */
export interface PollCycle {
  repo: RepoRef;
  /** Their `github` counts the cycle's requests. */
  deps: PollDeps;
  now: string;
  /** What `ingest` made of each event delivered so far, in order. */
  delivered: IngressOutcome[];
}

/** The author of what the poller itself notices (an item labelled, or gone), which no one on GitHub wrote. */
export const POLLER_ACTOR: Actor = { login: 'the-loop-poller', type: 'Bot' };

/** The fields an event of the poller's differs in; the key is the webhook path's, so a session drops a copy. */
export type PolledEventFields = Pick<IngressEvent, 'kind' | 'key' | 'actor' | 'text' | 'url' | 'at'>;

export function pollerEvent(repo: RepoRef, item: IngressItem, fields: PolledEventFields): IngressEvent {
  const { kind, key, actor, text, url, at } = fields;
  return { key, deliveryId: `poll:${key}`, source: 'poller', kind, repo, item, actor, text, url, at };
}

/** An item as a listing shows it: a listing says nothing of its title, URL, head branch or body. */
export function listedItem(
  number: number,
  isPullRequest: boolean,
  labels: string[] | null,
  state: 'open' | 'closed',
  merged = false,
): IngressItem {
  return { number, isPullRequest, state, labels, title: '', url: '', headRef: null, body: null, merged };
}

/** Through the same `ingest` as webhook deliveries. */
export async function deliver(cycle: PollCycle, event: IngressEvent): Promise<void> {
  cycle.delivered.push(await ingest(event, cycle.deps));
}
