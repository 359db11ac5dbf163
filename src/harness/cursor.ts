import { interpretJsonResult } from './claude';
import { resolveExecutable } from './env';
import { launchHarness } from './launch';
import type { HarnessAdapter, HarnessRunRequest, HarnessRunResult } from './types';

export const CURSOR_BIN_ENV = 'THE_LOOP_CURSOR_BIN';

/**
 * `cursor-agent -p --output-format json [--resume <chat id>]`. Its documentation shows the prompt as a
 * positional argument; we could not verify here that it reads stdin instead, but the project rule is
 * that prompts never go in argv (visible in `ps`, bounded in size), so the prompt goes on stdin.
 * cursor-agent cannot be told a chat id up front: a first turn runs without --resume and the id it
 * reports (`session_id`) is returned as conversationId. It has no permission-mode or budget flags;
 * those options are ignored (pass e.g. `--force` through extraArgs).
 */
export function cursorArgs(req: HarnessRunRequest): string[] {
  const args = ['-p', '--output-format', 'json'];
  if (req.conversation?.resume) args.push('--resume', req.conversation.id);
  args.push(...(req.options.extraArgs ?? []));
  return args;
}

export const cursorHarness: HarnessAdapter = {
  name: 'cursor',
  async run(req: HarnessRunRequest): Promise<HarnessRunResult> {
    const executable = resolveExecutable(req, CURSOR_BIN_ENV, 'cursor-agent');
    const started = Date.now();
    const outcome = await launchHarness('cursor', req, executable, cursorArgs(req));
    return cursorHarness.interpret(req, outcome, Date.now() - started);
  },
  interpret(req, outcome, wallClockMs) {
    const executable = resolveExecutable(req, CURSOR_BIN_ENV, 'cursor-agent');
    const result = interpretJsonResult('cursor-agent', outcome, executable, CURSOR_BIN_ENV, req, wallClockMs);
    // A first turn's requested id is not cursor's id; only an id cursor reported is worth resuming.
    if (!req.conversation?.resume && result.conversationId === req.conversation?.id) {
      return { ...result, conversationId: null };
    }
    return result;
  },
};
