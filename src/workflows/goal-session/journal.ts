import type { SessionEvent, SessionEventType } from '../../session/schemas/event';
import { clone } from '../clone';
import type { Flush, GoalSessionCarry, ProjectionReport, SessionStateFile } from './types';

const now = () => new Date().toISOString();

/**
 * How many of the newest history entries each projection carries. Every activity that carries one also writes it
 * before it completes, and an entry is added only when a turn completes: at most one is ever missing on disk.
 */
export const FLUSHED_HISTORY_WINDOW = 4;

/** What a continue-as-new carries of the journal. */
export type JournalCarry = Pick<GoalSessionCarry, 'seq' | 'events' | 'acknowledge'>;

type Acknowledgement = { iteration: number; routineId: string };

/** Behaviours added after histories were recorded without them (each behind its own patch). */
export interface JournalBehaviour {
  /** What a projection carried is sent again until its activity completes. */
  resendUnconfirmed: boolean;
  /** A projection that found history entries missing on disk is followed by one with the whole history. */
  repairProjection: boolean;
}

/** What an activity's result says it found writing its projection (a turn's outcome carries it as `projection`). */
export function projectionFound(result: unknown): ProjectionReport | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const report = 'projection' in result ? result.projection : result;
  if (typeof report !== 'object' || report === null || !('historyGap' in report)) return undefined;
  const rebuilt = 'eventsRebuilt' in report ? report.eventsRebuilt : undefined;
  return {
    historyGap: report.historyGap === true,
    ...(typeof rebuilt === 'number' ? { eventsRebuilt: rebuilt } : {}),
  };
}

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

  /** A projection found state.json short of entries the workflow holds: the next one carries the whole history. */
  private repairDue = false;

  /** Each behaviour off: the journal as the histories recorded before it replay it. */
  constructor(
    private readonly sessionId: string,
    private readonly sessionDir: string,
    carry?: JournalCarry,
    private readonly behaviour: JournalBehaviour = { resendUnconfirmed: true, repairProjection: true },
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
    const whole = this.repairDue;
    if (whole) {
      this.repairDue = false;
      this.emit('projection_repaired', { data: { history_entries: state.history.length } });
    }
    const owed = this.owed();
    const flush: Flush = {
      sessionDir: this.sessionDir,
      state: this.project(state, whole),
      events: owed.events,
      acknowledge: owed.acknowledge,
      heldFrom: state.history[0]?.iteration ?? 1,
    };
    if (this.behaviour.resendUnconfirmed) {
      this.unconfirmed = { events: owed.events, acknowledged: owed.acknowledge };
    }
    this.events = [];
    this.acknowledged = [];
    return flush;
  }

  /** The activity that carried `flush` completed: what it carried is on disk, and what it found there. */
  written(flush: Flush, found?: ProjectionReport): void {
    if (found?.historyGap && this.behaviour.repairProjection) this.repairDue = true;
    // events.jsonl was rewritten whole from the histories: said at once (the event is carried like any other)
    if (found?.eventsRebuilt !== undefined && this.behaviour.repairProjection) {
      this.emit('projection_repaired', { data: { events_rebuilt: found.eventsRebuilt } });
    }
    const lastSeq = flush.events.at(-1)?.seq ?? 0;
    const acknowledged = new Set(flush.acknowledge.map(acknowledgementKey));
    this.unconfirmed = {
      events: this.unconfirmed.events.filter((event) => event.seq > lastSeq),
      acknowledged: this.unconfirmed.acknowledged.filter((a) => !acknowledged.has(acknowledgementKey(a))),
    };
  }

  /**
   * state.json alone, at once (a control signal while a step runs). The events wait for the next drain: a
   * projection's activity may run before an earlier one's, and events.jsonl keeps the order they were emitted in.
   */
  snapshot(state: SessionStateFile): Flush {
    return { sessionDir: this.sessionDir, state: this.project(state, false), events: [], acknowledge: [] };
  }

  /** Numbered, so that the writer refuses an older projection whose activity ran late (session-files.ts). */
  private project(state: SessionStateFile, wholeHistory: boolean): SessionStateFile {
    state.updated_at = now();
    state.projection = (state.projection ?? 0) + 1;
    return clone({
      ...state,
      history: wholeHistory ? state.history : state.history.slice(-FLUSHED_HISTORY_WINDOW),
    });
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
