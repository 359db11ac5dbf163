import {
  afterStep,
  nextStep,
  RESUBMIT_EVERY_MS,
  type PaneLook,
  type SubmitWatch,
} from '../../../../src/work-item/host/submit-watch';

const IDLE = 'idle input box';
const within = 2 * RESUBMIT_EVERY_MS + 250;
const start: SubmitWatch = { submitBy: within, within, lastScreen: IDLE, enteredAt: null };
const look = (now: number, over: Partial<PaneLook> = {}): PaneLook => ({
  now,
  screen: IDLE,
  working: false,
  dialog: false,
  ...over,
});

/** Runs the looks one after another, as deliver-turn.ts does: each step, and the wait it leaves. */
function run(looks: PaneLook[]): string[] {
  let watch = start;
  const steps: string[] = [];
  for (const l of looks) {
    const step = nextStep(watch, l);
    steps.push(step);
    if (step === 'give-up') break;
    watch = afterStep(watch, l, step);
  }
  return steps;
}

describe('the wait for a pasted event’s turn to begin', () => {
  it('submits Enter again over a still screen, and gives up once the wait is over', () => {
    expect(run([look(5_000), look(10_000), look(15_000)])).toEqual(['enter', 'enter', 'give-up']);
  });

  it('does not give up within a look’s interval of an Enter: the Enter may have begun the turn', () => {
    // the last Enter at 10.2 s, just before the wait ends at 10.25 s: a look at 10.3 s must not paste again
    const entered = afterStep(start, look(10_200), 'enter');
    expect(nextStep(entered, look(10_300, { screen: 'moved' }))).toBe('wait');
    expect(nextStep(entered, look(10_200 + RESUBMIT_EVERY_MS - 1, { screen: 'moved' }))).toBe('wait');
    expect(nextStep(entered, look(10_200 + RESUBMIT_EVERY_MS, { screen: 'moved' }))).toBe('give-up');
  });

  it('starts the wait again while the TUI works on a submit', () => {
    const steps = run([
      look(5_000),
      look(10_000, { screen: 'esc to interrupt', working: true }),
      look(15_000, { screen: 'esc to interrupt', working: true }),
      look(20_000),
      look(25_000),
      look(30_000),
    ]);
    // the wait runs to 15 s + within after the last look that found it working
    expect(steps).toEqual(['enter', 'working', 'working', 'wait', 'enter', 'give-up']);
    const worked = afterStep(start, look(15_000, { working: true }), 'working');
    expect(worked.submitBy).toBe(15_000 + within);
  });

  it('never pastes Enter into a dialog, nor over a screen that moved or could not be read', () => {
    expect(nextStep(start, look(5_000, { dialog: true }))).toBe('wait');
    expect(nextStep(start, look(5_000, { screen: 'moved' }))).toBe('wait');
    expect(nextStep(start, look(5_000, { screen: null }))).toBe('wait');
  });

  it('gives up without an Enter when the screen kept moving', () => {
    expect(
      run([look(5_000, { screen: 'a' }), look(10_000, { screen: 'b' }), look(15_000, { screen: 'c' })]),
    ).toEqual(['wait', 'wait', 'give-up']);
  });
});
