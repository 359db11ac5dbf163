import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../src/config/schema';
import { createOctokitGitHubClient } from '../../../src/github/octokit';
import { DeliveryLedger, deliveryLedgerFile } from '../../../src/webhook/dedupe';
import { DeliveryInbox, deliveryInboxFile } from '../../../src/webhook/inbox';
import { waitFor } from '../../support/wait';
import { createDeliveryHandler } from '../../../src/webhook/handler';
import { createReceiver } from '../../../src/webhook/receiver';
import { signBody } from '../../support/fake-github/sign';
import { FakeGitHub } from '../../support/fake-github/server';
import { RecordingGateway } from '../../support/fake-github/recording-gateway';
import { issueCommentPayload } from '../../support/fake-github/payloads';

const SECRET = 'fuzz-secret';
const MAX = 16 * 1024;
const TOTAL = Number(process.env.FUZZ_DELIVERIES ?? 4000);

/** mulberry32: a seeded PRNG, so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Shot {
  category: string;
  headers: Record<string, string>;
  body: Buffer;
  chunked?: boolean;
}

function send(port: number, shot: Shot): Promise<number> {
  return new Promise((resolve) => {
    const headers = { ...shot.headers };
    if (!shot.chunked) headers['content-length'] = String(shot.body.length);
    const req = request({ host: '127.0.0.1', port, path: '/hook', method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(-1));
    });
    // the receiver may close the connection mid-body (413): that is an answer, not a crash
    req.on('error', () => resolve(-1));
    req.end(shot.body);
  });
}

describe('webhook receiver fuzz', () => {
  it(`${TOTAL} malformed, unsigned, oversized and replayed deliveries: none acted on, never crashes`, async () => {
    const fake = new FakeGitHub();
    await fake.start();
    fake.repo('Codertocat/Hello-World').permissions.set('codertocat', 'admin');
    const gateway = new RecordingGateway();
    const config = configSchema.parse({
      github: { apiUrl: fake.url },
      routing: { autoExecuteLabels: ['bug'] },
    });
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-fuzz-'));
    const receiver = createReceiver({
      secret: SECRET,
      path: '/hook',
      maxBodyBytes: MAX,
      ledger: DeliveryLedger.open(deliveryLedgerFile(stateDir)),
      inbox: await DeliveryInbox.open(deliveryInboxFile(stateDir)),
      handle: createDeliveryHandler({
        config,
        github: createOctokitGitHubClient({ apiUrl: fake.url, auth: { kind: 'none' }, throttle: false }),
        gateway,
        knowledge: { recordedLink: () => null, isDisarmed: () => false },
      }),
    });
    const { port } = await receiver.listen(0);
    const rand = prng(20240607);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));

    // One legitimate delivery, acted on once; everything after it must not be.
    const legitBody = JSON.stringify(issueCommentPayload('the-loop start'));
    const legit = {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': 'legit-1',
      'x-hub-signature-256': signBody(SECRET, legitBody),
    };
    const forwarded = () =>
      waitFor('every queued delivery handed on', () => receiver.stats.pending === 0, 120_000, 10);
    expect(await send(port, { category: 'legit', headers: legit, body: Buffer.from(legitBody) })).toBe(202);
    await forwarded();
    expect(gateway.calls).toHaveLength(1);

    const brokenPayloads = (): unknown => {
      const p = issueCommentPayload('the-loop start');
      switch (Math.floor(rand() * 8)) {
        case 0:
          return { ...p, issue: { ...(p.issue as object), number: String(rand()) } };
        case 1:
          return { ...p, comment: undefined };
        case 2:
          return { ...p, repository: null };
        case 3:
          return pick([null, 42, 'str', [], [1, 2, 3], true]);
        case 4:
          return { ...p, issue: { ...(p.issue as object), number: -Math.floor(rand() * 100) } };
        case 5:
          return { ...p, comment: { body: 'the-loop start' } };
        case 6:
          return { deeply: { nested: { garbage: bytes(20).toString('base64') } } };
        default:
          return { ...p, repository: { name: 5, owner: 'x' } };
      }
    };

    const categories = [
      'malformed-headers',
      'malformed-signed',
      'unsigned',
      'bad-signature',
      'oversized',
      'replay',
      'replay-new-id',
      'wrong-type',
    ] as const;
    const shots: Shot[] = [];
    for (let i = 0; i < TOTAL; i++) {
      const category = pick(categories);
      const id = `fuzz-${i}`;
      let body: Buffer = Buffer.from(legitBody);
      let headers: Record<string, string> = { ...legit, 'x-github-delivery': id };
      switch (category) {
        case 'malformed-headers': {
          body = rand() < 0.5 ? bytes(Math.floor(rand() * 200)) : Buffer.from(legitBody);
          headers = { 'content-type': 'application/json', 'x-hub-signature-256': signBody(SECRET, body) };
          // at most one of the two GitHub headers, and sometimes a broken one
          const which = rand();
          if (which < 0.5) headers['x-github-event'] = 'issue_comment';
          else if (which < 0.75) headers['x-github-delivery'] = id;
          if (rand() < 0.3) headers['x-github-event'] = 'x'.repeat(500);
          if (rand() < 0.3) headers['x-github-delivery'] = '';
          break;
        }
        case 'malformed-signed': {
          body =
            rand() < 0.3
              ? bytes(Math.floor(rand() * 500))
              : Buffer.from(JSON.stringify(brokenPayloads()) ?? 'null');
          headers = {
            ...headers,
            'x-github-event': pick([
              'issue_comment',
              'issues',
              'pull_request',
              'pull_request_review',
              'check_run',
              'zzz',
            ]),
            'x-hub-signature-256': signBody(SECRET, body),
          };
          break;
        }
        case 'unsigned':
          delete headers['x-hub-signature-256'];
          break;
        case 'bad-signature':
          headers['x-hub-signature-256'] = pick([
            signBody('not-the-secret', body),
            `sha256=${bytes(32).toString('hex')}`,
            `sha1=${bytes(20).toString('hex')}`,
            'sha256=',
            'garbage',
            signBody(SECRET, body).toUpperCase(),
            `${signBody(SECRET, body)}00`,
          ]);
          if (headers['x-hub-signature-256'] === signBody(SECRET, body).toUpperCase()) {
            // upper-case hex of the right digest is still the right digest; tamper with the body instead
            body = Buffer.concat([body, Buffer.from(' ')]);
          }
          break;
        case 'oversized':
          body = Buffer.concat([Buffer.from(legitBody), Buffer.alloc(MAX + Math.floor(rand() * MAX), 0x20)]);
          headers['x-hub-signature-256'] = signBody(SECRET, body);
          break;
        case 'replay':
          headers['x-github-delivery'] = 'legit-1';
          break;
        case 'replay-new-id':
          break;
        case 'wrong-type':
          headers['content-type'] = pick([
            'application/x-www-form-urlencoded',
            'text/plain',
            '',
            'application/jsonx',
            'multipart/form-data',
          ]);
          break;
      }
      shots.push({ category, headers, body, chunked: category === 'oversized' && rand() < 0.5 });
    }

    const started = Date.now();
    const counts: Record<string, Record<string, number>> = {};
    const concurrency = 32;
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < shots.length) {
          const shot = shots[next++] as Shot;
          const status = await send(port, shot);
          const byCategory = (counts[shot.category] ??= {});
          byCategory[String(status)] = (byCategory[String(status)] ?? 0) + 1;
        }
      }),
    );
    const elapsed = Date.now() - started;

    // Still alive and correct afterwards.
    const after = JSON.stringify(issueCommentPayload('the-loop pause'));
    const final = await send(port, {
      category: 'final',
      headers: { ...legit, 'x-github-delivery': 'final-1', 'x-hub-signature-256': signBody(SECRET, after) },
      body: Buffer.from(after),
    });
    expect(final).toBe(202);
    await forwarded();
    expect(gateway.calls.map((c) => c.type === 'control' && c.command)).toEqual(['start', 'pause']);

    console.log(
      `fuzz: ${TOTAL} deliveries in ${elapsed} ms, ${gateway.calls.length - 2} acted on; by category and status:\n` +
        Object.entries(counts)
          .map(([c, s]) => `  ${c}: ${JSON.stringify(s)}`)
          .join('\n') +
        `\n  receiver stats: ${JSON.stringify(receiver.stats)}`,
    );
    for (const [category, statuses] of Object.entries(counts)) {
      // nothing but rejections, duplicates, or accepted-and-ignored (signed garbage) answers; never a 5xx
      for (const status of Object.keys(statuses))
        expect({ category, status }).toEqual({
          category,
          status: expect.stringMatching(/^(200|202|400|401|413|415|-1)$/),
        });
    }
    expect(counts.unsigned?.['401']).toBe(
      counts.unsigned ? Object.values(counts.unsigned).reduce((a, b) => a + b) : undefined,
    );
    expect(receiver.stats.failed).toBe(0);
    // signed garbage is handed on and ignored, never retried
    expect(receiver.stats.retried).toBe(0);
    await receiver.close();
    await fake.stop();
  }, 600_000); // 4000 requests took 61 s beside two CPU burners on a 2-core machine: the bound is for a hang
});
