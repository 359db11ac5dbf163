import type { TheLoopConfig } from '../config/schema';

/**
 * The secret from webhook.secret, else THE_LOOP_WEBHOOK_SECRET; never printed. A file of its own: `the-loop status`
 * asks whether one is configured without loading the receiver.
 */
export function webhookSecret(
  ctx: { config: TheLoopConfig },
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  return ctx.config.webhook.secret ?? (env.THE_LOOP_WEBHOOK_SECRET || null);
}
