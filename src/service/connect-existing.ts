import { ANSWER_DEADLINE_MS, connectClient } from '../temporal/connection';
import type { CliContext } from './context';
import { resolveTarget } from '../temporal/target';
import { webUiAddress } from '../temporal/web-ui';

/**
 * Connects without starting anything (status, control verbs). Apart from ensure-service.ts, which can start the
 * service: `loopy status` runs from a start-up snapshot that must not carry the service's code.
 */
export async function connectExisting(ctx: CliContext, timeoutMs = ANSWER_DEADLINE_MS) {
  const target = resolveTarget(ctx.config, ctx.stateDir);
  const connected = await connectClient(target, timeoutMs);
  return { ...connected, target, uiAddress: webUiAddress(ctx.config, target) };
}
