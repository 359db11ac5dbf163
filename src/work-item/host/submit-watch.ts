/**
 * How long a pasted event may wait for its turn to begin, and what each look at the pane does meanwhile: the rules of
 * deliver-turn.ts's wait, apart from the pane and the clock, so that they are tested without either.
 */

/**
 * A paste whose Enter the TUI did not take (claude's slash-command menu, opening on a pasted `/…`, sometimes eats
 * it) is submitted again when no turn has begun and the screen has not moved for this long. No turn begun: the
 * UserPromptSubmit report is taken before the model is even called, so no dialog of that turn can be showing for
 * the Enter to answer. A still screen that does not show the TUI working: a TUI that works (a slow hook, a spinner,
 * a slash command's `!` lines) is left alone. Looks come this often.
 */
export const RESUBMIT_EVERY_MS = 5_000;

/** A wait for a turn to begin: until when, and the last look's screen and Enter. */
export interface SubmitWatch {
  /** No turn begun by then: the wait gives up, at its next look that finds the TUI idle. */
  submitBy: number;
  /** How long the TUI may stay idle before the wait gives up; a look that finds it working starts it again. */
  within: number;
  lastScreen: string | null;
  /** When the last Enter was pasted (null: none yet). */
  enteredAt: number | null;
}

/**
 * What one look at the pane found. `working`: the screen was read and shows the TUI at work. `dialog`: the pane's
 * state says a dialog shows (pasting Enter would answer it).
 */
export interface PaneLook {
  now: number;
  screen: string | null;
  working: boolean;
  dialog: boolean;
}

/** What a look does (nextStep). */
export type SubmitStep = 'working' | 'enter' | 'give-up' | 'wait';

/**
 * What a look does: `working`, the TUI took a submit (its turn-started report comes once its hook ran), and the wait
 * starts again; `enter`, a still screen with no turn begun, Enter again; `give-up`, no turn began within the wait;
 * `wait`, look again later.
 *
 * The wait gives up only at a look, and never within a look's interval of an Enter: an Enter that took shows the TUI
 * working by the next look, and the event pasted again meanwhile would be queued behind the turn that Enter began, and
 * run a second time.
 */
export function nextStep(watch: SubmitWatch, look: PaneLook): SubmitStep {
  if (look.working) return 'working';
  const sinceEnter = watch.enteredAt === null ? Infinity : look.now - watch.enteredAt;
  if (look.now > watch.submitBy && sinceEnter >= RESUBMIT_EVERY_MS) return 'give-up';
  if (!look.dialog && look.screen !== null && look.screen === watch.lastScreen) return 'enter';
  return 'wait';
}

/** The wait after a look's step (a look that gives up ends it). */
export function afterStep(
  watch: SubmitWatch,
  look: PaneLook,
  step: Exclude<SubmitStep, 'give-up'>,
): SubmitWatch {
  return {
    ...watch,
    lastScreen: look.screen,
    ...(step === 'working' ? { submitBy: look.now + watch.within } : {}),
    ...(step === 'enter' ? { enteredAt: look.now } : {}),
  };
}
