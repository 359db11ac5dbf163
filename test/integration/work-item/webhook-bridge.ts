import { createLocalKnowledge } from '../../../src/bridge/knowledge';
import type { IngressOutcome, WorkItemGateway } from '../../../src/bridge/ingress';
import { createTemporalGateway } from '../../../src/bridge/temporal-gateway';
import type { GitHubClient } from '../../../src/github/api';
import { DeliveryLedger, deliveryLedgerFile } from '../../../src/webhook/dedupe';
import { DeliveryInbox, deliveryInboxFile } from '../../../src/webhook/inbox';
import { createDeliveryHandler } from '../../../src/webhook/handler';
import { createReceiver } from '../../../src/webhook/receiver';
import { DEFAULT_PROCESS_GRAPH } from '../../../src/config/process-graph';
import { postDelivery } from '../../support/fake-github/sign';
import { type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

export interface WebhookBridge {
  outcomes: IngressOutcome[];
  /** POSTs a signed delivery, expects 202, and waits until the bridge has handled it. */
  post(event: string, payload: Record<string, unknown>): Promise<IngressOutcome>;
  close(): Promise<void>;
}

/**
 * The webhook bridge as `the-loop webhook` builds it, on the test's worker queues: work items it starts are frozen
 * with the default process graph. `wrap` sees (and may count) every gateway call.
 */
export async function startWebhookBridge(
  env: WorkItemTestEnv,
  github: GitHubClient,
  secret: string,
  wrap: (gateway: WorkItemGateway) => WorkItemGateway = (gateway) => gateway,
): Promise<WebhookBridge> {
  const gateway = createTemporalGateway(
    env.client,
    { ...env.queues, graph: DEFAULT_PROCESS_GRAPH },
    { controlWaitMs: 30_000 },
  );
  const outcomes: IngressOutcome[] = [];
  const receiver = createReceiver({
    secret,
    path: '/github/webhook',
    maxBodyBytes: 1024 * 1024,
    ledger: DeliveryLedger.open(deliveryLedgerFile(env.stateDir)),
    inbox: await DeliveryInbox.open(deliveryInboxFile(env.stateDir)),
    handle: createDeliveryHandler(
      { config: env.config, github, gateway: wrap(gateway), knowledge: createLocalKnowledge(env.dirs) },
      (outcome) => outcomes.push(outcome),
    ),
  });
  const { url } = await receiver.listen(0);
  let delivery = 0;
  return {
    outcomes,
    async post(event, payload) {
      const before = outcomes.length;
      const res = await postDelivery(url, secret, {
        event,
        id: `bridge-${process.pid}-${++delivery}`,
        payload,
      });
      if (res.status !== 202) throw new Error(`the receiver answered ${res.status} to a ${event} delivery`);
      return waitFor(`the ${event} delivery handled`, () => outcomes[before], 180_000);
    },
    close: () => receiver.close(),
  };
}

/** Points a fixture payload's repository at `fullName` (owner/repo on github.com). */
export function inRepository(payload: Record<string, unknown>, fullName: string): Record<string, unknown> {
  const [owner = '', name = ''] = fullName.split('/');
  const repository = payload.repository as Record<string, unknown>;
  payload.repository = {
    ...repository,
    name,
    full_name: fullName,
    html_url: `https://github.com/${fullName}`,
    owner: { ...(repository.owner as Record<string, unknown>), login: owner },
  };
  return payload;
}
