import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliveryInbox } from '../../../src/webhook/inbox';
import { issueCommentPayload } from '../../support/fake-github/payloads';
import { fuzzJson, refusedBy, seeded } from '../../support/json-fuzz';

describe('JSON bounds on inbox lines', () => {
  it('fuzz: 300 inbox lines each load or are skipped, and what loads stringifies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tl-ib-'));
    const rand = seeded(7_000_004);
    const line = {
      deliveryId: 'd-1',
      event: 'issues',
      keys: ['delivery:d-1'],
      payload: issueCommentPayload('the-loop start'),
      receivedAt: 1,
    };
    const lines = Array.from({ length: 300 }, () => fuzzJson(rand, line, 64 * 1024).text.replace(/\n/g, ' '));
    const file = join(dir, 'inbox.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const skipped: string[] = [];
    const inbox = await DeliveryInbox.open(file, { onBadLine: (problem) => skipped.push(problem) });
    try {
      const tooDeep = lines.filter((l) => refusedBy(l, { maxDepth: 65, maxBytes: Infinity }) === 'too-deep');
      expect(tooDeep.length).toBeGreaterThan(0);
      expect(skipped.filter((s) => s.includes('JSON nests deeper than 65 levels'))).toHaveLength(
        tooDeep.length,
      );
      expect(() => JSON.stringify(inbox.pending())).not.toThrow();
    } finally {
      await inbox.close();
    }
  });
});
