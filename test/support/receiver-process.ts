// The webhook receiver in a process of its own, so that a test can measure its memory (compiled to
// dist/test/support/receiver-process.js by `npm run build`). Configured by one JSON argument:
//   {secret, maxBodyBytes, limits}
// Tells its parent {port} over IPC once listening; answers {type: 'memory'} with {rssBytes, peakRssBytes,
// connections} after a full garbage collection (run it with --expose-gc).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReceiverLimits } from '../../src/webhook/limits';
import { DeliveryLedger, deliveryLedgerFile } from '../../src/webhook/dedupe';
import { DeliveryInbox, deliveryInboxFile } from '../../src/webhook/inbox';
import { createReceiver } from '../../src/webhook/receiver';

export interface ReceiverProcessSpec {
  secret: string;
  maxBodyBytes: number;
  limits: Partial<ReceiverLimits>;
}

export interface ReceiverMemory {
  rssBytes: number;
  /** The kernel's high-water mark of the process's resident set (VmHWM). */
  peakRssBytes: number;
  connections: number;
  handled: number;
}

function statusKiB(field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  if (!match?.[1]) throw new Error(`no ${field} in /proc/self/status`);
  return Number(match[1]) * 1024;
}

async function main(): Promise<void> {
  const raw = process.argv[2];
  if (!raw || !process.send)
    throw new Error('usage: fork receiver-process <json spec> (with an IPC channel)');
  const spec = JSON.parse(raw) as ReceiverProcessSpec;
  const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-receiver-'));
  const receiver = createReceiver({
    secret: spec.secret,
    path: '/hook',
    maxBodyBytes: spec.maxBodyBytes,
    limits: spec.limits,
    ledger: DeliveryLedger.open(deliveryLedgerFile(stateDir)),
    inbox: await DeliveryInbox.open(deliveryInboxFile(stateDir)),
    handle: () => Promise.resolve({ summary: 'ok' }),
  });
  const { port } = await receiver.listen(0);
  process.on('message', (message: { type?: string }) => {
    if (message.type !== 'memory') return;
    (globalThis as { gc?: () => void }).gc?.();
    receiver.server.getConnections((_error, connections) => {
      const memory: ReceiverMemory = {
        rssBytes: statusKiB('VmRSS'),
        peakRssBytes: statusKiB('VmHWM'),
        connections,
        handled: receiver.stats.forwarded,
      };
      process.send?.({ type: 'memory', memory });
    });
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'listening', port });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
