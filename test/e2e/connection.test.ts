import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/dev-server';
import { runCli, type CliResult } from '../support/cli';
import { testServer } from '../support/temporal';

/** A well-formed id that no session has: each call must ask Temporal about it before it can say so. */
const UNKNOWN_SESSION = '20260101_000000_0123456789ab_0badc0de';
const CALLS = 100;
const AT_ONCE = 25;

/** Runs `count` calls with at most `limit` in flight at any time. */
async function bounded(count: number, limit: number, call: () => Promise<CliResult>): Promise<CliResult[]> {
  const results: CliResult[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) {
        next++;
        results.push(await call());
      }
    }),
  );
  return results;
}

describe('connecting to Temporal', () => {
  it(`${CALLS} concurrent Temporal-bound CLI calls against a live server: none reports it unreachable`, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'the-loop-conn-'));
    const env = {
      TEMPORAL_ADDRESS: testServer().address,
      THE_LOOP_STATE_DIR: join(cwd, 'state'),
      THE_LOOP_CONFIG: '',
    };
    const results = await bounded(CALLS, AT_ONCE, () =>
      runCli(['pause', UNKNOWN_SESSION], { env, cwd, name: 'loopy', timeoutMs: 300_000 }),
    );
    expect(results).toHaveLength(CALLS);
    const unreachable = results.filter((r) => r.code === 4).map((r) => r.stderr.trim());
    expect(unreachable).toEqual([]);
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`unknown session '${UNKNOWN_SESSION}'`);
    }
  }, 900_000);

  it('with nothing listening, a Temporal-bound command exits 4 with the fix', async () => {
    const port = await freePort();
    const cwd = mkdtempSync(join(tmpdir(), 'the-loop-conn-'));
    const result = await runCli(['pause', UNKNOWN_SESSION], {
      env: { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, THE_LOOP_CONFIG: '' },
      cwd,
      name: 'loopy',
    });
    expect(result.code).toBe(4);
    expect(result.stderr.trim()).toMatch(
      new RegExp(
        `^loopy: cannot reach Temporal at 127\\.0\\.0\\.1:${port} \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\) — check TEMPORAL_ADDRESS / temporal\\.address \\(environment\\)$`,
      ),
    );
  });

  it('the embedded service down: the same exit 4, naming `the-loop start`', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'the-loop-conn-'));
    const port = await freePort();
    const config = join(cwd, 'the-loop.yaml');
    writeFileSync(config, `temporal:\n  devServer:\n    port: ${port}\n`);
    const result = await runCli(['pause', UNKNOWN_SESSION], {
      env: { TEMPORAL_ADDRESS: '', THE_LOOP_STATE_DIR: join(cwd, 'state'), THE_LOOP_CONFIG: config },
      cwd,
      name: 'loopy',
    });
    expect(result.code).toBe(4);
    expect(result.stderr.trim()).toBe(
      `loopy: cannot reach Temporal at 127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}) — run \`the-loop start\` to start the embedded Temporal service`,
    );
  });
});
