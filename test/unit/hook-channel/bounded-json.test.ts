import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHookChannel } from '../../../src/hook-channel/server';
import { REPORT_PATH } from '../../../src/hook-channel/protocol';
import { fuzzJson, refusedBy, seeded } from '../../support/json-fuzz';

function post(socketPath: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const headers = { authorization: `Bearer ${token}` };
    const req = request({ socketPath, path: REPORT_PATH, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => done({ status: res.statusCode ?? 0, text: text.trim() }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

const report = {
  schema_version: 1,
  harness: 'claude',
  harness_session_id: 's-1',
  cwd: '/tmp/work',
  at: '2026-01-01T00:00:00.000Z',
  event: 'turn-ended',
  last_assistant_message: 'Done: all tests pass.',
  transcript_path: null,
};

describe('JSON bounds on hook reports', () => {
  it('fuzz: 300 hook reports are each handled (204) or refused 400, the deep ones by the bounds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tl-hb-'));
    let handled = 0;
    const channel = await startHookChannel({ dir: join(dir, 'c'), onReport: () => void handled++ });
    try {
      const access = await channel.openSession('fuzzed');
      const token = readFileSync(access.tokenFile, 'utf8').trim();
      const rand = seeded(7_000_003);
      let accepted = 0;
      for (let i = 0; i < 300; i++) {
        const { kind, text } = fuzzJson(rand, report, 64 * 1024);
        const got = await post(channel.socketPath, token, text);
        const problem = refusedBy(text, { maxDepth: 16, maxBytes: 4 * 1024 * 1024 });
        if (problem === 'too-deep')
          expect({ i, kind, ...got }).toEqual({
            i,
            kind,
            status: 400,
            text: expect.stringMatching(/^JSON nests deeper than 16 levels/) as unknown,
          });
        else expect({ i, kind, ok: [204, 400].includes(got.status) }).toEqual({ i, kind, ok: true });
        if (got.status === 204) accepted++;
      }
      expect(handled).toBe(accepted);
      expect(await post(channel.socketPath, token, JSON.stringify(report))).toEqual({
        status: 204,
        text: '',
      });
    } finally {
      await channel.close();
    }
  });
});
