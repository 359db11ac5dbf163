import type { DeliverableEvent } from './messages';
import { acceptsEvent, type WorkItemState } from './rules';

/** A work-item session's queued events, and the ids it has taken (a redelivered event is dropped). */
export class EventQueue {
  readonly events: DeliverableEvent[];
  readonly seen: Set<string>;

  constructor(carried?: { queue: DeliverableEvent[]; seen: string[] }) {
    this.events = carried ? [...carried.queue] : [];
    this.seen = new Set(carried?.seen ?? []);
  }

  get length(): number {
    return this.events.length;
  }

  get head(): DeliverableEvent | undefined {
    return this.events[0];
  }

  /** Queues `event` unless the session is closing or took it before; `first`: a kickoff or a node's turn. */
  add(state: WorkItemState, event: DeliverableEvent, first = false): void {
    if (!acceptsEvent(state, this.seen, event)) return;
    this.seen.add(event.id);
    if (first) this.events.unshift(event);
    else this.events.push(event);
  }

  /** Drops the event a turn delivered, by identity: a kickoff may have been queued ahead of it meanwhile. */
  remove(event: DeliverableEvent): void {
    this.events.splice(this.events.indexOf(event), 1);
  }
}
