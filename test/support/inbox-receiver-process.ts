// The receiver with its inbox and forwarder in a process of its own, so that a test can SIGKILL it mid-drain
// (compiled to dist/test/support/inbox-receiver-process.js by `npm run build`). Configured by one JSON argument:
//   {stateDir, secret, downstreamFile, handleDelayMs}
// Its handler stands in for the bridge: it records the delivery id in `downstreamFile` (as a signal would reach
// the workflow), then takes `handleDelayMs` before it answers. Tells its parent {port} over IPC once listening.
import { appendLine } from '../../src/session/atomic';
import { DeliveryLedger, deliveryLedgerFile } from '../../src/webhook/dedupe';
import { DeliveryInbox, deliveryInboxFile } from '../../src/webhook/inbox';
import { createReceiver } from '../../src/webhook/receiver';

export interface InboxReceiverSpec {
  stateDir: string;
  secret: string;
  downstreamFile: string;
  handleDelayMs: number;
}

async function main(): Promise<void> {
  const raw = process.argv[2];
  if (!raw || !process.send)
    throw new Error('usage: fork inbox-receiver-process <json spec> (with an IPC channel)');
  const spec = JSON.parse(raw) as InboxReceiverSpec;
  const receiver = createReceiver({
    secret: spec.secret,
    path: '/hook',
    maxBodyBytes: 1024 * 1024,
    ledger: DeliveryLedger.open(deliveryLedgerFile(spec.stateDir)),
    inbox: await DeliveryInbox.open(deliveryInboxFile(spec.stateDir)),
    forwardConcurrency: 4,
    handle: async ({ deliveryId, payload }) => {
      const number = (payload as { issue: { number: number } }).issue.number;
      appendLine(spec.downstreamFile, JSON.stringify({ deliveryId, number }));
      await new Promise((resolve) => setTimeout(resolve, spec.handleDelayMs));
      return { summary: 'signalled' };
    },
  });
  const { port } = await receiver.listen(0);
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'stats') process.send?.({ type: 'stats', stats: receiver.stats });
  });
  process.on('disconnect', () => void receiver.close().then(() => process.exit(0)));
  process.send({ type: 'listening', port });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
