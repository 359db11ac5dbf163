import { normalizeWebhook } from '../bridge/events';
import { ingest, type IngressDeps, type IngressOutcome } from '../bridge/ingress';
import type { DeliveryHandler } from './receiver';

/** Verified deliveries → normalized events → the shared ingress (the poller delivers through `ingest` too). */
export function createDeliveryHandler(
  deps: IngressDeps,
  onOutcome?: (outcome: IngressOutcome, delivery: { event: string; deliveryId: string }) => void,
): DeliveryHandler {
  return async ({ event, deliveryId, payload }) => {
    const normalized = normalizeWebhook(event, deliveryId, payload);
    if ('ignored' in normalized) return { summary: `ignored: ${normalized.ignored}` };
    const parts: string[] = [];
    for (const item of normalized.events) {
      const outcome = await ingest(item, deps);
      onOutcome?.(outcome, { event, deliveryId });
      deps.logger?.info(
        `webhook ${event} ${deliveryId}: ${outcome.action}${outcome.workItem ? ` ${outcome.workItem}` : ''} — ${outcome.reason}`,
      );
      parts.push(`${outcome.action}${outcome.workItem ? ` ${outcome.workItem}` : ''}`);
    }
    return { summary: parts.join('; ') };
  };
}
