import { patched, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { GoalSessionInput, SessionStateFile } from './types';
import {
  NOTHING_PUBLISHED,
  searchAttributesDue,
  type PublishedAttributes,
} from './search-attribute-throttle';
import { goalWaiting } from '../../session/goal-waiting';
import { goalSessionAttributes, LoopWaiting } from '../search-attributes';
import { ATTRIBUTES_ONCE_A_SECOND, WAITING_ATTRIBUTE } from './patches';

/**
 * How a goal session shows itself outside its files: its search attributes (visibility queries, the Web UI's list)
 * and its current details (the Web UI's page). Workflow code.
 */
export class SessionDisplay {
  private published: PublishedAttributes = NOTHING_PUBLISHED;
  /** The details last shown, which a session that stops being queued shows again. */
  private details = '';

  constructor(
    private readonly input: GoalSessionInput,
    private readonly state: SessionStateFile,
  ) {}

  publish(): void {
    this.published = { atMs: Date.now(), status: this.state.status };
    const attributes = goalSessionAttributes(this.input, this.state);
    // why it waits on a person (blocked, question), as work items say it: `LoopWaiting = "question"` finds them
    if (patched(WAITING_ATTRIBUTE)) {
      attributes.push({ key: LoopWaiting, value: goalWaiting(this.state)?.reason ?? null });
    }
    upsertSearchAttributes(attributes);
  }

  /** At a turn's start: the attributes go out when the status changed or the last upsert is a second old. */
  publishIfDue(): void {
    const due = searchAttributesDue(this.published, this.state.status, Date.now());
    if (due || !patched(ATTRIBUTES_ONCE_A_SECOND)) this.publish();
  }

  show(details: string): void {
    this.details = details;
    setCurrentDetails(details);
  }

  /** The step (0: the set-up, n: iteration n) waits for a worker's activity slot: status, details and attributes. */
  queued(step: number): void {
    if (this.state.status !== 'running') return;
    this.state.status = 'queued';
    const what = step === 0 ? "the session's set-up" : `iteration ${step}`;
    setCurrentDetails(`queued: ${what} waits for a free activity slot on ${this.input.hostQueue}`);
    this.publish();
  }

  /** The queued step started, or ended without starting. */
  running(): void {
    if (this.state.status !== 'queued') return;
    this.state.status = 'running';
    setCurrentDetails(this.details);
    this.publish();
  }
}
