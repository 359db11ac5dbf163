import { request } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../src/config/schema';
import { createOctokitGitHubClient } from '../../../src/github/octokit';
import type { IngressOutcome } from '../../../src/bridge/ingress';
import { DeliveryLedger, deliveryLedgerFile } from '../../../src/webhook/dedupe';
import { DeliveryInbox, deliveryInboxFile } from '../../../src/webhook/inbox';
import { waitFor } from '../../support/wait';
import { createDeliveryHandler } from '../../../src/webhook/handler';
import { createReceiver, type Receiver } from '../../../src/webhook/receiver';
import { signBody } from '../../support/fake-github/sign';
import { FakeGitHub } from '../../support/fake-github/server';
import { RecordingGateway } from '../../support/fake-github/recording-gateway';
import { examplePayload, issueCommentPayload } from '../../support/fake-github/payloads';
import { capturedLogger } from '../../support/captured-logger';

const SECRET = 'test-webhook-secret-do-not-log';

export async function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', body, headers });
  const text = await res.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { raw: text };
  }
  return { status: res.status, json };
}

export function signedHeaders(
  event: string,
  delivery: string,
  body: string,
  secret = SECRET,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-github-event': event,
    'x-github-delivery': delivery,
    'x-hub-signature-256': signBody(secret, body),
  };
}

describe('webhook receiver', () => {
  const fake = new FakeGitHub();
  let stateDir: string;
  let receiver: Receiver;
  let url: string;
  let gateway: RecordingGateway;
  let outcomes: IngressOutcome[];
  const { logger, output: logged } = capturedLogger();

  async function startReceiver(maxBodyBytes = 64 * 1024): Promise<void> {
    const config = configSchema.parse({
      github: { apiUrl: fake.url },
      routing: { autoExecuteLabels: ['bug'] },
      webhook: { secret: SECRET },
    });
    const github = createOctokitGitHubClient({ apiUrl: fake.url, auth: { kind: 'none' }, throttle: false });
    const handler = createDeliveryHandler(
      {
        config,
        github,
        gateway,
        knowledge: { recordedLink: () => null, isDisarmed: () => false },
        logger,
      },
      (o) => outcomes.push(o),
    );
    receiver = createReceiver({
      secret: SECRET,
      path: '/github/webhook',
      maxBodyBytes,
      ledger: DeliveryLedger.open(deliveryLedgerFile(stateDir)),
      inbox: await DeliveryInbox.open(deliveryInboxFile(stateDir)),
      handle: handler,
      forwardBackoff: { initialMs: 10, maxMs: 40 },
      logger,
    });
    url = (await receiver.listen(0)).url;
  }

  /** The answer comes once a delivery is queued; its effect once the forwarder handed it on. */
  const forwarded = () =>
    waitFor('every queued delivery handed on', () => receiver.stats.pending === 0, 10_000, 5);

  beforeAll(async () => {
    await fake.start();
  });
  afterAll(() => fake.stop());
  beforeEach(async () => {
    fake.repos.clear();
    const repo = fake.repo('Codertocat/Hello-World');
    repo.permissions.set('codertocat', 'admin');
    repo.permissions.set('mallory', 'read');
    fake.addIssue('Codertocat/Hello-World', { number: 1, labels: ['bug'] });
    stateDir = mkdtempSync(join(tmpdir(), 'the-loop-webhook-'));
    gateway = new RecordingGateway();
    outcomes = [];
    await startReceiver();
  });
  afterEach(() => receiver.close());

  it('a signed "the-loop start" from an authorized user on a labelled issue starts the session', async () => {
    const body = JSON.stringify(issueCommentPayload('the-loop start'));
    const res = await post(url, body, signedHeaders('issue_comment', 'd-1', body));
    expect(res).toEqual({ status: 202, json: { status: 'queued', delivery: 'd-1' } });
    await forwarded();
    expect(gateway.calls).toEqual([
      {
        type: 'control',
        workItem: 'github:codertocat/hello-world#1',
        command: 'start',
        allowStart: true,
        by: 'Codertocat',
      },
    ]);
    expect(gateway.running.has('github:codertocat/hello-world#1')).toBe(true);
  });

  it('the same from an unauthorized user does nothing', async () => {
    const body = JSON.stringify(issueCommentPayload('the-loop start', 'mallory'));
    const res = await post(url, body, signedHeaders('issue_comment', 'd-2', body));
    expect(res.status).toBe(202);
    await forwarded();
    expect(gateway.calls).toEqual([]);
    expect(outcomes[0]).toMatchObject({ action: 'unauthorized', command: 'start' });
    expect(logged()).toContain("ignored 'the-loop start' from @mallory");
  });

  it('an unlabelled issue is not started by a start keyword', async () => {
    const body = JSON.stringify(issueCommentPayload('the-loop start', 'Codertocat', ['enhancement']));
    await post(url, body, signedHeaders('issue_comment', 'd-3', body));
    await forwarded();
    expect(gateway.calls).toEqual([expect.objectContaining({ type: 'control', allowStart: false })]);
    expect(gateway.running.size).toBe(0);
    expect(outcomes[0]?.action).toBe('not-running');
  });

  it('a bad signature gets 401 and nothing happens', async () => {
    const body = JSON.stringify(issueCommentPayload('the-loop start'));
    const wrong = signedHeaders('issue_comment', 'd-4', body, 'another-secret');
    expect((await post(url, body, wrong)).status).toBe(401);
    const missing = { ...signedHeaders('issue_comment', 'd-4', body) };
    delete (missing as Record<string, string | undefined>)['x-hub-signature-256'];
    expect((await post(url, body, missing)).status).toBe(401);
    // signed over different bytes than were sent (re-serialized JSON): the raw body is what counts
    const tampered = body.replace('the-loop start', 'the-loop stop ');
    expect((await post(url, tampered, signedHeaders('issue_comment', 'd-4', body))).status).toBe(401);
    // bytes that are not UTF-8 have no text the signature check could sign: never verified, even when signed
    const notUtf8 = Buffer.concat([Buffer.from(body.slice(0, -1)), Buffer.from([0xff]), Buffer.from('}')]);
    const signedBytes = {
      ...signedHeaders('issue_comment', 'd-4', body),
      'x-hub-signature-256': signBody(SECRET, notUtf8),
    };
    expect((await post(url, notUtf8, signedBytes)).status).toBe(401);
    expect(gateway.calls).toEqual([]);
  });

  it('the same delivery sent twice is acted on once, also after a restart, and a replay under a new id too', async () => {
    const body = JSON.stringify(issueCommentPayload('the-loop start'));
    expect((await post(url, body, signedHeaders('issue_comment', 'd-5', body))).status).toBe(202);
    await forwarded();
    const again = await post(url, body, signedHeaders('issue_comment', 'd-5', body));
    expect(again).toMatchObject({ status: 200, json: { status: 'duplicate' } });
    const renamed = await post(url, body, signedHeaders('issue_comment', 'd-5-replayed', body));
    expect(renamed.json.status).toBe('duplicate');
    await receiver.close();
    await startReceiver();
    const afterRestart = await post(url, body, signedHeaders('issue_comment', 'd-5', body));
    expect(afterRestart.json.status).toBe('duplicate');
    expect(gateway.calls).toHaveLength(1);
    expect(readFileSync(deliveryLedgerFile(stateDir), 'utf8')).toContain('delivery:d-5');
  });

  it('concurrent copies of one delivery are acted on once', async () => {
    const body = JSON.stringify(issueCommentPayload('the-loop start'));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => post(url, body, signedHeaders('issue_comment', 'd-6', body))),
    );
    expect(results.filter((r) => r.status === 202)).toHaveLength(1);
    await forwarded();
    expect(gateway.calls).toHaveLength(1);
  });

  it('forwards what it accepted during a burst once the requests beside it are over', async () => {
    // a second request still being received: its body is sent in two parts, the second one later
    const slowBody = JSON.stringify(issueCommentPayload('hello from a slow sender'));
    const slow = request(url, {
      method: 'POST',
      headers: signedHeaders('issue_comment', 'd-slow', slowBody),
    });
    const slowAnswer = new Promise<number>((resolve, reject) => {
      slow.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      slow.on('error', reject);
    });
    slow.write(slowBody.slice(0, 10));
    await waitFor('the slow request received', () => receiver.stats.received === 1, 10_000, 5);

    const body = JSON.stringify(issueCommentPayload('the-loop start'));
    expect((await post(url, body, signedHeaders('issue_comment', 'd-burst', body))).status).toBe(202);
    // held, not lost: in the inbox and counted as pending while the slow request is still open
    expect(receiver.stats.pending).toBe(1);
    expect(receiver.stats.forwarded).toBe(0);
    expect(gateway.calls).toEqual([]);

    slow.end(slowBody.slice(10));
    expect(await slowAnswer).toBe(202);
    await forwarded();
    expect(receiver.stats.forwarded).toBe(2);
    // both handed on, in the order they were accepted: the start, then the slow sender's comment
    expect(gateway.calls.map((call) => call.type)).toEqual(['control', 'deliver']);
  });

  it('400 for missing GitHub headers, 415 for a wrong content type, 404/405 elsewhere', async () => {
    const body = JSON.stringify(issueCommentPayload('hi'));
    const h = signedHeaders('issue_comment', 'd-7', body);
    const noEvent = { ...h };
    delete (noEvent as Record<string, string | undefined>)['x-github-event'];
    expect((await post(url, body, noEvent)).status).toBe(400);
    const noDelivery = { ...h };
    delete (noDelivery as Record<string, string | undefined>)['x-github-delivery'];
    expect((await post(url, body, noDelivery)).status).toBe(400);
    expect(
      (await post(url, body, { ...h, 'content-type': 'application/x-www-form-urlencoded' })).status,
    ).toBe(415);
    expect((await post(url.replace('/github/webhook', '/other'), body, h)).status).toBe(404);
    expect((await fetch(url)).status).toBe(405);
    expect(receiver.stats.queued).toBe(0);
    expect(gateway.calls).toEqual([]);
  });

  it('a signed body that is not JSON is queued, then dropped by forwarding and recorded', async () => {
    const notJson = 'not json';
    expect((await post(url, notJson, signedHeaders('issue_comment', 'd-8', notJson))).status).toBe(202);
    await forwarded();
    expect(logged()).toContain('webhook: delivery d-8 (issue_comment) dropped: body is not JSON');
    expect(gateway.calls).toEqual([]);
    // recorded in the ledger like a delivery handed on: its redelivery is a duplicate
    expect((await post(url, notJson, signedHeaders('issue_comment', 'd-8', notJson))).status).toBe(200);
  });

  it('413 for an oversized body, declared or streamed', async () => {
    await receiver.close();
    await startReceiver(1024);
    const big = JSON.stringify({ pad: 'x'.repeat(5000) });
    expect((await post(url, big, signedHeaders('issue_comment', 'd-9', big))).status).toBe(413);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', headers: signedHeaders('issue_comment', 'd-10', big) },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      // chunked: no Content-Length, so the limit is enforced while streaming
      for (let i = 0; i < 10; i++) req.write('x'.repeat(500));
      req.end();
    });
    expect(status).toBe(413);
    expect(gateway.calls).toEqual([]);
  });

  it('a delivery Temporal refuses is queued all the same, retried until it goes through, then never again', async () => {
    const body = JSON.stringify(issueCommentPayload('the-loop start'));
    const original = gateway.control.bind(gateway);
    let failures = 3;
    gateway.control = async (...args) => {
      if (failures-- > 0) throw new Error('temporal unavailable');
      return original(...args);
    };
    expect((await post(url, body, signedHeaders('issue_comment', 'd-11', body))).status).toBe(202);
    // while it waits for its next attempt, GitHub's redelivery is a duplicate
    expect((await post(url, body, signedHeaders('issue_comment', 'd-11', body))).status).toBe(200);
    await forwarded();
    expect(receiver.stats).toMatchObject({ queued: 1, forwarded: 1, retried: 3, pending: 0 });
    expect(gateway.running.size).toBe(1);
    expect(logged()).toContain('delivery d-11 (issue_comment) failed, attempt 3');
    await receiver.close();
    await startReceiver();
    expect(receiver.stats.pending).toBe(0);
    expect((await post(url, body, signedHeaders('issue_comment', 'd-11', body))).status).toBe(200);
  });

  it('the issue closing auto-closes its session; a comment by the-loop itself is never acted on', async () => {
    gateway.running.add('github:codertocat/hello-world#1');
    const mine = JSON.stringify(issueCommentPayload('the-loop stop\n\n<!-- the-loop:automated -->'));
    await post(url, mine, signedHeaders('issue_comment', 'd-12', mine));
    await forwarded();
    expect(gateway.calls).toEqual([]);
    const closed = examplePayload('issues', 'reopened');
    closed.action = 'closed';
    (closed.issue as Record<string, unknown>).state = 'closed';
    const body = JSON.stringify(closed);
    expect((await post(url, body, signedHeaders('issues', 'd-13', body))).status).toBe(202);
    await forwarded();
    expect(gateway.calls).toEqual([
      {
        type: 'close',
        workItem: 'github:codertocat/hello-world#1',
        reason: 'issue closed',
        authorized: true,
      },
    ]);
    expect(gateway.running.size).toBe(0);
  });

  it('logs one info line per delivery — event, delivery id, verdict — accepted or rejected', async () => {
    const body = JSON.stringify(issueCommentPayload('hello'));
    await post(url, body, signedHeaders('issue_comment', 'd-15', body));
    await post(url, body, signedHeaders('issue_comment', 'd-15', body));
    await post(url, body, signedHeaders('issue_comment', 'd-16', body, 'another-secret'));
    await post(url, 'not json', signedHeaders('issue_comment', 'd-17', 'not json'));
    await post(url, body, { ...signedHeaders('issue_comment', 'd-18', body), 'content-type': 'text/plain' });
    const noDelivery: Record<string, string | undefined> = { ...signedHeaders('push', 'd-19', body) };
    delete noDelivery['x-github-delivery'];
    await post(url, body, noDelivery as Record<string, string>);
    await forwarded();
    // this test's deliveries only: the captured log holds the earlier tests' lines too
    const lines = logged()
      .split('\n')
      .filter((line) => /"msg":"webhook: delivery (d-1[5-8]|- \(push\))/.test(line))
      .map((line) => {
        const { level, msg } = JSON.parse(line) as { level: number; msg: string };
        return { level, msg };
      });
    expect(lines.filter((line) => line.level === 30).map((line) => line.msg)).toEqual([
      'webhook: delivery d-15 (issue_comment): queued',
      'webhook: delivery d-15 (issue_comment): duplicate',
      'webhook: delivery d-16 (issue_comment): rejected 401: bad or missing X-Hub-Signature-256',
      'webhook: delivery d-17 (issue_comment): queued',
      'webhook: delivery d-18 (issue_comment): rejected 415: content type must be application/json',
      'webhook: delivery - (push): rejected 400: missing X-GitHub-Event or X-GitHub-Delivery',
    ]);
    // the body is parsed by forwarding, after the answer: its verdict is a warning of its own
    expect(lines.filter((line) => line.level !== 30)).toEqual([
      { level: 40, msg: 'webhook: delivery d-17 (issue_comment) dropped: body is not JSON' },
    ]);
  });

  it('logs a refused oversized delivery too', async () => {
    await receiver.close();
    await startReceiver(1024);
    const big = JSON.stringify({ pad: 'x'.repeat(5000) });
    expect((await post(url, big, signedHeaders('issue_comment', 'd-20', big))).status).toBe(413);
    expect(logged()).toContain('webhook: delivery d-20 (issue_comment): rejected 413: body over 1024 bytes');
  });

  it('never writes the secret to logs or responses', async () => {
    const body = JSON.stringify(issueCommentPayload('the-loop start'));
    const res = await post(url, body, signedHeaders('issue_comment', 'd-14', body, 'wrong'));
    expect(JSON.stringify(res.json)).not.toContain(SECRET);
    expect(logged()).not.toContain(SECRET);
  });
});
