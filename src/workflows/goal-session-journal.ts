import type { SessionEvent, SessionEventType } from '../session/schemas/event';
import { clone } from './clone';
import type { Flush, GoalSessionCarry, SessionStateFile } from './goal-session-types';

const now = () => new Date().toISOString();

/**
 * How many of the newest history entries each projection carries. Every activity that carries one also writes it
 * before it completes, and an entry is added only when a turn completes: at most one is ever missing on disk.
 */
export const FLUSHED_HISTORY_WINDOW = 4;

/** What a continue-as-new carries of the journal. */
export type JournalCarry = Pick<GoalSessionCarry, 'seq' | 'events' | 'acknowledge'>;

type Acknowledgement = { iteration: number; routineId: string };

/**
 * What a goal session has not written yet: its numbered events and the turns whose outcome it has recorded. Each
 * activity that writes the session directory takes them with `drain`, after state.json (DESIGN: events follow the
 * state mutation). What a projection carried stays owed until `written` confirms that its activity completed: an
 * activity can fail or be cancelled before it wrote anything (a stop while a turn's retry waits for a worker), and
 * its events then ride the next projection, whose writer skips the ones already on disk. Workflow code: no Node
 * built-ins; the clock is the workflow's.
 */
export class SessionJournal {
  private seq: number;
  private events: SessionEvent[];
  private acknowledged: Acknowledgement[];
  /** Drained into a projection whose activity has not completed yet. */
  private unconfirmed: { events: SessionEvent[]; acknowledged: Acknowledgement[] } = {
    events: [],
    acknowledged: [],
  };

  /** `resendUnconfirmed` false: the journal as histories recorded before it existed replay it (drained is written). */
  constructor(
    private readonly sessionId: string,
    private readonly sessionDir: string,
    carry?: JournalCarry,
    private readonly resendUnconfirmed = true,
  ) {
    this.seq = carry?.seq ?? 0;
    this.events = clone(carry?.events ?? []);
    this.acknowledged = clone(carry?.acknowledge ?? []);
  }

  emit(
    type: SessionEventType,
    extra: Partial<Pick<SessionEvent, 'iteration' | 'routine_id' | 'data'>> = {},
  ): void {
    this.seq += 1;
    this.events.push({ v: 1, seq: this.seq, ts: now(), session_id: this.sessionId, type, ...extra });
  }

  /** The turn's outcome is in the state: its pending_finished_request.json can go. */
  acknowledge(iteration: number, routineId: string): void {
    this.acknowledged.push({ iteration, routineId });
  }

  /** The next projection: state.json with its newest history entries, and all that is owed, unconfirmed first. */
  drain(state: SessionStateFile): Flush {
    state.updated_at = now();
    const owed = this.owed();
    const flush: Flush = {
      sessionDir: this.sessionDir,
      state: clone({ ...state, history: state.history.slice(-FLUSHED_HISTORY_WINDOW) }),
      events: owed.events,
      acknowledge: owed.acknowledge,
    };
    if (this.resendUnconfirmed) {
      this.unconfirmed = { events: owed.events, acknowledged: owed.acknowledge };
    }
    this.events = [];
    this.acknowledged = [];
    return flush;
  }

  /** The activity that carried `flush` completed: what it carried is on disk. */
  written(flush: Flush): void {
    const lastSeq = flush.events.at(-1)?.seq ?? 0;
    const acknowledged = new Set(flush.acknowledge.map(acknowledgementKey));
    this.unconfirmed = {
      events: this.unconfirmed.events.filter((event) => event.seq > lastSeq),
      acknowledged: this.unconfirmed.acknowledged.filter((a) => !acknowledged.has(acknowledgementKey(a))),
    };
  }

  carry(): JournalCarry {
    return { seq: this.seq, ...this.owed() };
  }

  private owed(): Pick<JournalCarry, 'events' | 'acknowledge'> {
    return {
      events: [...this.unconfirmed.events, ...this.events],
      acknowledge: [...this.unconfirmed.acknowledged, ...this.acknowledged],
    };
  }
}

const acknowledgementKey = (a: Acknowledgement) => `${a.iteration}/${a.routineId}`;
