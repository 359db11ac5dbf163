import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanChildRequests } from '../../../src/activities/child-requests';
import { fuzzJson, seeded } from '../../support/json-fuzz';

describe('JSON bounds on child request files', () => {
  it('fuzz: 300 child request files each give a request or an error, never a throw', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tl-cr-'));
    const requests = join(dir, 'child_requests');
    mkdirSync(requests);
    const rand = seeded(7_000_005);
    const texts = Array.from(
      { length: 300 },
      () => fuzzJson(rand, { goal: 'fix it', max_iterations: 3 }, 48 * 1024).text,
    );
    texts.forEach((text, i) => writeFileSync(join(requests, `r${i}.json`), text));
    const scans = scanChildRequests(dir);
    expect(scans).toHaveLength(300);
    for (const scan of scans)
      expect({ file: scan.file, either: (scan.request === null) !== (scan.error === null) }).toEqual({
        file: scan.file,
        either: true,
      });
    expect(
      scans.filter((s) => s.error?.startsWith('JSON nests deeper than 8 levels')).length,
    ).toBeGreaterThan(0);
  });
});
