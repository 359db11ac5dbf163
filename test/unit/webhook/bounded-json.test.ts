import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoundedJsonError, parseBoundedJson } from '../../../src/json/bounded-json';
import { DeliveryLedger, deliveryLedgerFile } from '../../../src/webhook/dedupe';
import { DeliveryInbox, deliveryInboxFile } from '../../../src/webhook/inbox';
import { MAX_PAYLOAD_DEPTH } from '../../../src/webhook/limits';
import { createReceiver, type Receiver } from '../../../src/webhook/receiver';
import { createSlackEventsRoute, SLACK_EVENTS_PATH } from '../../../src/webhook/slack-events';
import { signBody } from '../../support/fake-github/sign';
import { issueCommentPayload } from '../../support/fake-github/payloads';
import { messageEvent, slackHeaders } from '../../support/fake-slack/events';
import { capturedLogger } from '../../support/captured-logger';
import { waitFor } from '../../support/wait';
import { fuzzJson, seeded } from '../../support/json-fuzz';

const SECRET = 'bounded-json-secret';
const SLACK_SECRET = 'bounded-json-slack-secret';
const MAX_BODY = 64 * 1024;

/** The 400 a body refused by the bounds gets, or null when the bounds let it through. */
function boundsRefusal(text: string): string | null {
  try {
    parseBoundedJson(text, { maxDepth: MAX_PAYLOAD_DEPTH, maxBytes: MAX_BODY });
    return null;
  } catch (error) {
    const refused = error as BoundedJsonError;
    return refused.problem === 'not-json' ? 'body is not JSON' : refused.message;
  }
}

async function post(url: string, body: string, headers: Record<string, string>) {
  // a receiver that died never answers: fail in seconds, not at the test's timeout
  const res = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return { status: res.status, error: (JSON.parse(text) as { error?: string }).error };
}

function github(delivery: string, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-github-event': 'issue_comment',
    'x-github-delivery': delivery,
    'x-hub-signature-256': signBody(SECRET, body),
  };
}

describe('JSON bounds at the webhook receiver and the Slack route', () => {
  let receiver: Receiver;
  let url: string;
  let slackUrl: string;
  const handled: string[] = [];
  const { logger, output } = capturedLogger();

  beforeEach(async () => {
    handled.length = 0;
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-bounded-'));
    const ledger = DeliveryLedger.open(deliveryLedgerFile(stateDir));
    const slack = createSlackEventsRoute({
      signingSecret: SLACK_SECRET,
      // nobody is authorized: a reply that parses is answered 200 (ignored) without reaching the sink
      authorizedUsers: [],
      maxBodyBytes: MAX_BODY,
      ledger,
      sink: () => Promise.resolve(),
      logger,
    });
    receiver = createReceiver({
      secret: SECRET,
      path: '/github/webhook',
      maxBodyBytes: MAX_BODY,
      ledger,
      inbox: await DeliveryInbox.open(deliveryInboxFile(stateDir)),
      handle: ({ deliveryId }) => {
        handled.push(deliveryId);
        return Promise.resolve({ summary: 'ok' });
      },
      routes: new Map([[SLACK_EVENTS_PATH, slack]]),
      logger,
    });
    url = (await receiver.listen(0)).url;
    slackUrl = url.replace('/github/webhook', SLACK_EVENTS_PATH);
  });

  afterEach(() => receiver.close());

  it('queues a signed body nested 5,000 deep, which forwarding drops and logs; the next delivery goes on', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    expect(await post(url, deep, github('deep-1', deep))).toMatchObject({ status: 202 });
    await waitFor('the deep delivery dropped', () => receiver.stats.pending === 0, 10_000, 10);
    expect(output()).toContain(
      `webhook: delivery deep-1 (issue_comment) dropped: JSON nests deeper than ${MAX_PAYLOAD_DEPTH} levels (at character ${MAX_PAYLOAD_DEPTH}): send a flatter document`,
    );
    // recorded as handled: GitHub redelivering it is a duplicate, not another drop
    expect(await post(url, deep, github('deep-1', deep))).toMatchObject({ status: 200 });

    const body = JSON.stringify(issueCommentPayload('the-loop start'));
    expect(await post(url, body, github('valid-1', body))).toMatchObject({ status: 202 });
    await waitFor('the valid delivery handed on', () => handled.includes('valid-1'), 10_000, 10);
    expect(handled).toEqual(['valid-1']);
  });

  it('fuzz: 200 signed GitHub bodies are each queued or a duplicate, and forwarding drops what the bounds refuse', async () => {
    const rand = seeded(7_000_001);
    const base = issueCommentPayload('the-loop start');
    const queued = new Set<string>();
    const refusals = new Map<string, string>();
    for (let i = 0; i < 200; i++) {
      const { kind, text } = fuzzJson(rand, base, MAX_BODY / 2);
      // a body over maxBodyBytes never reaches the parser: the size check answers 413 first
      if (Buffer.byteLength(text) > MAX_BODY) continue;
      const got = await post(url, text, github(`fuzz-${i}`, text));
      // the same body under another id is a duplicate (the signature is a key): accepting parses nothing
      expect({ i, kind, ...got }).toEqual({
        i,
        kind,
        status: queued.has(text) ? 200 : 202,
        error: undefined,
      });
      const refusal = boundsRefusal(text);
      if (!queued.has(text) && refusal !== null) refusals.set(`fuzz-${i}`, refusal);
      queued.add(text);
    }
    expect(refusals.size).toBeGreaterThan(0);
    await waitFor('the fuzz handed on or dropped', () => receiver.stats.pending === 0, 10_000, 10);
    for (const [id, refusal] of refusals)
      expect(output()).toContain(`webhook: delivery ${id} (issue_comment) dropped: ${refusal}`);
    expect(handled.filter((id) => refusals.has(id))).toEqual([]);
    expect(receiver.stats.failed).toBe(0);
    const body = JSON.stringify(issueCommentPayload('after the fuzz'));
    expect(await post(url, body, github('after-fuzz', body))).toMatchObject({ status: 202 });
  });

  it('fuzz: 200 signed Slack bodies are each answered, or refused 400 by the bounds', async () => {
    const rand = seeded(7_000_002);
    const base = messageEvent({
      eventId: 'Ev0FUZZ',
      channel: 'C0LOOP',
      user: 'U0ALICE',
      text: 'the-loop pause',
      ts: '1750000002.000100',
      threadTs: '1750000001.000001',
    });
    for (let i = 0; i < 200; i++) {
      const { kind, text } = fuzzJson(rand, base, MAX_BODY / 2);
      if (Buffer.byteLength(text) > MAX_BODY) continue;
      const got = await post(slackUrl, text, slackHeaders(SLACK_SECRET, text));
      const refusal = boundsRefusal(text);
      if (refusal !== null) expect({ i, kind, ...got }).toEqual({ i, kind, status: 400, error: refusal });
      // what parses is an envelope (200) or not one (400): never a failure of ours
      else expect({ i, kind, ok: [200, 400].includes(got.status) }).toEqual({ i, kind, ok: true });
    }
    expect(output()).toContain('slack: request refused: JSON nests deeper than');
  });
});
