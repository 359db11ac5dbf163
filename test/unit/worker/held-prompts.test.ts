import type { HookReply } from '../../../src/hook-channel/server';
import { heldPrompts, NO_DECISION } from '../../../src/worker/held-prompts';

/** A pane whose screen the test sets: true (the prompt shows), false (it does not), null (no screen to read). */
function pane(timeout?: { ms: number; decision: 'allow' | 'deny' }) {
  const seen = { screen: true as boolean | null, terminal: [] as string[], timedOut: [] as string[] };
  const prompts = heldPrompts({
    promptShown: () => Promise.resolve(seen.screen),
    answeredInTerminal: (workItem) => {
      seen.terminal.push(workItem);
      return Promise.resolve();
    },
    timedOut: (workItem, decision) => {
      seen.timedOut.push(`${workItem} ${decision}`);
      return Promise.resolve();
    },
    ...(timeout ? { timeout } : {}),
    log: () => undefined,
  });
  return { prompts, seen };
}

const ALLOW: HookReply = { status: 200, body: { decision: 'allow', message: null, always: false } };

describe('held permission prompts: the first answer decides', () => {
  it('an answer from elsewhere while the prompt shows is the decision', async () => {
    const { prompts } = pane();
    const { decided, drawn } = prompts.hold('a');
    await drawn;
    expect(await prompts.answer('a', ALLOW)).toBe('answered');
    expect(await decided).toEqual(ALLOW);
    expect(await prompts.answer('a', ALLOW)).toBe('none'); // nothing is held any more
  });

  it('a prompt seen and then gone was answered in the terminal: the hook decides nothing, a later answer is refused', async () => {
    const { prompts, seen } = pane();
    const { decided, drawn } = prompts.hold('b');
    await drawn;
    seen.screen = false;
    expect(await prompts.answer('b', ALLOW)).toBe('terminal');
    expect(await decided).toEqual(NO_DECISION);
    expect(seen.terminal).toEqual(['b']);
    expect(await prompts.answer('b', ALLOW)).toBe('none');
  });

  it('the watch finds the terminal answer by itself, with nobody asking', async () => {
    const { prompts, seen } = pane();
    const { decided, drawn } = prompts.hold('c');
    await drawn;
    seen.screen = false;
    expect(await decided).toEqual(NO_DECISION);
    expect(seen.terminal).toEqual(['c']);
  });

  it('a prompt never seen on a readable screen is not taken for an answered one', async () => {
    const { prompts, seen } = pane();
    seen.screen = null; // no screen to read: the session is said to wait at once
    const { decided, drawn } = prompts.hold('d');
    await drawn;
    expect(await prompts.answer('d', ALLOW)).toBe('answered');
    expect(await decided).toEqual(ALLOW);
    expect(seen.terminal).toEqual([]);
  });

  it('with a timeout, a prompt nobody answers gets onTimeout', async () => {
    const { prompts, seen } = pane({ ms: 1000, decision: 'deny' });
    const { decided } = prompts.hold('e');
    expect(await decided).toMatchObject({ status: 200, body: { decision: 'deny' } });
    expect(seen.timedOut).toEqual(['e deny']);
    expect(await prompts.answer('e', ALLOW)).toBe('none');
  });

  it('a newer prompt in the same pane releases the older one with no decision', async () => {
    const { prompts } = pane();
    const first = prompts.hold('f');
    const second = prompts.hold('f');
    expect(await first.decided).toEqual(NO_DECISION);
    await second.drawn;
    expect(await prompts.answer('f', ALLOW)).toBe('answered');
    expect(await second.decided).toEqual(ALLOW);
  });
});
