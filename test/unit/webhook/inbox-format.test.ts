import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliveryInbox, inboxLineSchema, openDelivery } from '../../../src/webhook/inbox';
import { MAX_PAYLOAD_DEPTH } from '../../../src/webhook/limits';
import { issueCommentPayload } from '../../support/fake-github/payloads';

const received = (id: string, text: string) => ({
  deliveryId: id,
  event: 'issue_comment',
  keys: [`delivery:${id}`],
  body: Buffer.from(text),
  receivedAt: 1,
});

describe('inbox lines', () => {
  it('keeps the body as received, in base64, and parses it only when opened', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'the-loop-inbox-format-')), 'inbox.jsonl');
    const payload = issueCommentPayload('quotes " and \\ and ünïcode, a newline\nin a string');
    // the body as GitHub might send it: pretty-printed, so with newlines between tokens
    const text = JSON.stringify(payload, null, 2);
    const inbox = await DeliveryInbox.open(file);
    const stored = await inbox.append(received('d-1', text));
    await inbox.close();

    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const line = inboxLineSchema.parse(JSON.parse(lines[0] as string));
    expect(line).toEqual(stored);
    expect(Buffer.from((line as { body: string }).body, 'base64').toString('utf8')).toBe(text);

    const again = await DeliveryInbox.open(file);
    const [pending] = again.pending();
    expect(openDelivery(pending as NonNullable<typeof pending>)).toEqual({
      deliveryId: 'd-1',
      event: 'issue_comment',
      keys: ['delivery:d-1'],
      payload,
      receivedAt: 1,
    });
    await again.close();
  });

  it('opens a line written with its payload parsed (before bodies were kept raw) as it is', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'the-loop-inbox-format-')), 'inbox.jsonl');
    const line = {
      deliveryId: 'old',
      event: 'issues',
      keys: ['delivery:old'],
      payload: { a: 1 },
      receivedAt: 2,
    };
    writeFileSync(file, `${JSON.stringify(line)}\n`);
    const inbox = await DeliveryInbox.open(file);
    expect(inbox.pending().map(openDelivery)).toEqual([line]);
    await inbox.close();
  });

  it('refuses, when opened, a body that is not JSON or nests too deep', () => {
    const open = (text: string) => {
      const { body, ...rest } = received('d', text);
      return openDelivery({ ...rest, body: body.toString('base64') });
    };
    expect(open('not json')).toEqual({ refused: 'body is not JSON' });
    const deep = '['.repeat(MAX_PAYLOAD_DEPTH + 1) + ']'.repeat(MAX_PAYLOAD_DEPTH + 1);
    expect(open(deep)).toEqual({
      refused: `JSON nests deeper than ${MAX_PAYLOAD_DEPTH} levels (at character ${MAX_PAYLOAD_DEPTH}): send a flatter document`,
    });
  });
});
