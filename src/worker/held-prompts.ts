import type { HookReply } from '../hook-channel/server';

/** How often a held prompt's screen is looked at: an answer in the terminal is known within about this long. */
const WATCH_EVERY_MS = 500;
/** A prompt is drawn as its hook starts; looked for this often, for at most this long, before anyone is told. */
const DRAWN_EVERY_MS = 100;
const DRAWN_WITHIN_MS = 10_000;

/** The hook is told nothing was decided here: claude's own prompt decides. */
export const NO_DECISION: HookReply = { status: 200, body: { decision: null } };

interface Ask {
  release: (reply: HookReply) => void;
  /** The prompt was seen on the pane's screen: gone from it later, a person answered it there. */
  shown: boolean;
  watch: NodeJS.Timeout | null;
  expiry: NodeJS.Timeout | null;
}

export interface HeldPromptsPort {
  /** Whether the pane's screen shows the prompt now; null when the screen cannot be read. */
  promptShown(workItem: string): Promise<boolean | null>;
  /** The held prompt was answered in the terminal: the hook has been told nothing was decided here. */
  answeredInTerminal(workItem: string): Promise<void>;
  /** Held past `timeout`: the hook got the timeout's answer. */
  timedOut(workItem: string, decision: 'allow' | 'deny'): Promise<void>;
  /** permissions.timeout and permissions.onTimeout; none: a prompt waits without limit. */
  timeout?: { ms: number; decision: 'allow' | 'deny' };
  log(line: string): void;
}

/**
 * Permission prompts held for an answer from elsewhere, one per pane: the PermissionRequest hook waits on it. Claude
 * Code does not end the hook of a prompt a person answers in the terminal, so the screen tells: a prompt seen there
 * and then gone was answered there, and a later answer from elsewhere is refused. The first answer decides.
 */
export function heldPrompts(port: HeldPromptsPort) {
  const asks = new Map<string, Ask>();

  function release(workItem: string, reply: HookReply): boolean {
    const ask = asks.get(workItem);
    if (!ask) return false;
    asks.delete(workItem);
    if (ask.watch) clearInterval(ask.watch);
    if (ask.expiry) clearTimeout(ask.expiry);
    ask.release(reply);
    return true;
  }

  /** Looks at the screen: true when the prompt was seen there before and is gone now (and the ask is released). */
  async function goneFromScreen(workItem: string): Promise<boolean> {
    const ask = asks.get(workItem);
    if (!ask) return false;
    const shown = await port.promptShown(workItem);
    if (shown === null || asks.get(workItem) !== ask) return false;
    if (shown) {
      ask.shown = true;
      return false;
    }
    if (!ask.shown) return false;
    release(workItem, NO_DECISION);
    await port.answeredInTerminal(workItem);
    return true;
  }

  return {
    /**
     * Holds the prompt's hook until release(). Resolves `drawn` once the prompt is on the screen (or after a bound),
     * so that the session is said to wait only once a later answer in the terminal can be told from none.
     */
    hold(workItem: string): { decided: Promise<HookReply>; drawn: Promise<void> } {
      release(workItem, NO_DECISION);
      let resolveDecided: (reply: HookReply) => void = () => undefined;
      const decided = new Promise<HookReply>((resolve) => (resolveDecided = resolve));
      const ask: Ask = { release: resolveDecided, shown: false, watch: null, expiry: null };
      asks.set(workItem, ask);
      const { timeout } = port;
      if (timeout) {
        ask.expiry = setTimeout(() => {
          if (asks.get(workItem) !== ask) return;
          const message = timeout.decision === 'deny' ? 'no answer in time (permissions.timeout)' : null;
          release(workItem, { status: 200, body: { decision: timeout.decision, message, always: false } });
          void port
            .timedOut(workItem, timeout.decision)
            .catch((error: unknown) => port.log(`${workItem}: ${String(error)}`));
        }, timeout.ms);
      }
      const drawn = (async () => {
        const until = Date.now() + DRAWN_WITHIN_MS;
        while (asks.get(workItem) === ask && !ask.shown && Date.now() < until) {
          const shown = await port.promptShown(workItem);
          if (shown === null) break; // no screen to read (no turn delivered there): nothing to wait for
          if (shown) ask.shown = true;
          else await new Promise((resolve) => setTimeout(resolve, DRAWN_EVERY_MS));
        }
        if (asks.get(workItem) !== ask) return;
        ask.watch = setInterval(() => {
          void goneFromScreen(workItem).catch((error: unknown) => port.log(`${workItem}: ${String(error)}`));
        }, WATCH_EVERY_MS);
      })();
      return { decided, drawn };
    },
    release,
    /** An answer from elsewhere: refused ('terminal') when the terminal answered first, 'none' when none is held. */
    async answer(workItem: string, reply: HookReply): Promise<'answered' | 'terminal' | 'none'> {
      if (await goneFromScreen(workItem)) return 'terminal';
      return release(workItem, reply) ? 'answered' : 'none';
    },
    held: () => [...asks.keys()],
  };
}
