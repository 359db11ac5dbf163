import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ReceiverStats } from '../../../src/webhook/receiver';
import { acceptsEvent } from '../../../src/workflows/work-item/rules';
import { signBody } from '../../support/fake-github/sign';
import type { InboxReceiverSpec } from '../../support/inbox-receiver-process';
import { waitFor } from '../../support/wait';

// The receiver, its inbox and forwarder in a child process (dist/test/support/inbox-receiver-process.js),
// SIGKILLed while it hands deliveries on, then started again: every accepted delivery reaches the downstream
// at least once, and exactly once through the work-item workflow's own rule (it drops an event id it has seen).

const REPO = resolve(__dirname, '..', '..', '..');
const SCRIPT = join(REPO, 'dist', 'test', 'support', 'inbox-receiver-process.js');
const SECRET = 'inbox-crash-secret';
const ITEMS = 5;
const PER_ITEM = 8;

function start(spec: InboxReceiverSpec): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(SCRIPT, [JSON.stringify(spec)], { stdio: 'inherit' });
  return new Promise((resolveStart, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the receiver exited (${code}) before it listened`)));
    child.once('message', (message: { type?: string; port?: number }) => {
      if (message.type === 'listening') resolveStart({ child, url: `http://127.0.0.1:${message.port}/hook` });
    });
  });
}

function stats(child: ChildProcess): Promise<ReceiverStats> {
  return new Promise((resolveStats) => {
    const onMessage = (message: { type?: string; stats?: ReceiverStats }) => {
      if (message.type !== 'stats' || !message.stats) return;
      child.off('message', onMessage);
      resolveStats(message.stats);
    };
    child.on('message', onMessage);
    child.send({ type: 'stats' });
  });
}

async function send(url: string, id: string, number: number): Promise<number> {
  const body = JSON.stringify({
    action: 'created',
    repository: { full_name: 'Codertocat/Hello-World' },
    issue: { number },
    comment: { id, body: `comment ${id}` },
  });
  const res = await fetch(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': id,
      'x-hub-signature-256': signBody(SECRET, body),
    },
  });
  await res.text();
  return res.status;
}

function downstream(file: string): { deliveryId: string; number: number }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { deliveryId: string; number: number });
}

describe('webhook inbox across a crash', () => {
  let child: ChildProcess | null = null;
  afterEach(() => {
    child?.kill('SIGKILL');
  });

  it('a receiver SIGKILLed mid-drain loses nothing on restart, and the workflow acts on each delivery once', async () => {
    expect(existsSync(SCRIPT)).toBe(true); // `npm run build` first
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-inbox-crash-'));
    const spec = { stateDir, secret: SECRET, downstreamFile: join(stateDir, 'downstream.jsonl') };
    const sent: { id: string; number: number }[] = [];
    for (let round = 0; round < PER_ITEM; round++)
      for (let number = 1; number <= ITEMS; number++) sent.push({ id: `d-${number}-${round}`, number });

    // Slow handling: 4 at a time, 1 s each, so the kill lands while deliveries are handed on.
    const first = await start({ ...spec, handleDelayMs: 1000 });
    child = first.child;
    // each work item's deliveries one after another (so that their arrival order is known), the items at once
    const answers = await Promise.all(
      Array.from({ length: ITEMS }, async (_, i) => {
        const statuses: number[] = [];
        for (const d of sent.filter((x) => x.number === i + 1))
          statuses.push(await send(first.url, d.id, d.number));
        return statuses;
      }),
    );
    expect(answers.flat()).toEqual(sent.map(() => 202));
    await waitFor('some deliveries handed on', () => downstream(spec.downstreamFile).length >= 8, 30_000, 10);
    const before = await stats(first.child);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(before.pending).toBeGreaterThan(0); // the kill came mid-drain

    const second = await start({ ...spec, handleDelayMs: 0 });
    child = second.child;
    // GitHub's redeliveries of accepted deliveries are duplicates, whether handed on before the crash or not
    const again = await Promise.all(sent.slice(0, 10).map((d) => send(second.url, d.id, d.number)));
    expect(again).toEqual(sent.slice(0, 10).map(() => 200));
    await waitFor('the inbox drained', async () => (await stats(second.child)).pending === 0, 30_000, 50);

    const reached = downstream(spec.downstreamFile);
    const ids = reached.map((r) => r.deliveryId);
    // at least once: every delivery reached the downstream
    expect([...new Set(ids)].sort()).toEqual(sent.map((d) => d.id).sort());
    // those under way at the kill reached it twice
    expect(ids.length).toBeGreaterThan(sent.length);
    // exactly once through the workflow's rule, and in arrival order per work item
    for (let number = 1; number <= ITEMS; number++) {
      const seen = new Set<string>();
      const acted: string[] = [];
      for (const r of reached.filter((x) => x.number === number)) {
        if (!acceptsEvent('active', seen, { id: r.deliveryId, text: '', source: 'webhook' })) continue;
        seen.add(r.deliveryId);
        acted.push(r.deliveryId);
      }
      expect(acted).toEqual(sent.filter((d) => d.number === number).map((d) => d.id));
    }
  }, 120_000);
});
