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

/**
 * What a goal session has not written yet: its numbered events and the turns whose outcome it has recorded. Each
 * activity that writes the session directory takes them with `drain`, after state.json (DESIGN: events follow the
 * state mutation). Workflow code: no Node built-ins; the clock is the workflow's.
 */
export class SessionJournal {
  private seq: number;
  private events: SessionEvent[];
  private acknowledged: { iteration: number; routineId: string }[];

  constructor(
    private readonly sessionId: string,
    private readonly sessionDir: string,
    carry?: JournalCarry,
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

  /** The next projection: state.json with its newest history entries, and all that is pending, which it empties. */
  drain(state: SessionStateFile): Flush {
    const flush: Flush = {
      sessionDir: this.sessionDir,
      state: this.project(state),
      events: this.events,
      acknowledge: this.acknowledged,
    };
    this.events = [];
    this.acknowledged = [];
    return flush;
  }

  /**
   * state.json alone, at once (a control signal while a step runs). The events wait for the next drain: a
   * projection's activity may run before an earlier one's, and events.jsonl keeps the order they were emitted in.
   */
  snapshot(state: SessionStateFile): Flush {
    return { sessionDir: this.sessionDir, state: this.project(state), events: [], acknowledge: [] };
  }

  /** Numbered, so that the writer refuses an older projection whose activity ran late (session-files.ts). */
  private project(state: SessionStateFile): SessionStateFile {
    state.updated_at = now();
    state.projection = (state.projection ?? 0) + 1;
    return clone({ ...state, history: state.history.slice(-FLUSHED_HISTORY_WINDOW) });
  }

  carry(): JournalCarry {
    return { seq: this.seq, events: this.events, acknowledge: this.acknowledged };
  }
}
