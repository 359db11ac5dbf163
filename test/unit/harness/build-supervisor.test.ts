import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSupervisor, describeSupervisor } from '../../../src/harness/build-supervisor';

jest.setTimeout(120_000);

describe('buildSupervisor', () => {
  let cache: string;
  beforeEach(() => {
    cache = mkdtempSync(join(tmpdir(), 'supervisor-cache-'));
  });
  afterEach(() => rmSync(cache, { recursive: true, force: true }));

  test('builds once per machine into the cache, and finds it there the next time', async () => {
    const env = { PATH: process.env.PATH, XDG_CACHE_HOME: cache };
    const first = await buildSupervisor(env);
    if (first.kind !== 'compiled') throw new Error(`not built: ${first.reason} (apt-get install gcc)`);
    expect(first.path.startsWith(join(cache, 'the-loop', 'supervisor'))).toBe(true);
    const builtAt = statSync(first.path).mtimeMs;
    expect(await buildSupervisor(env)).toEqual(first);
    expect(statSync(first.path).mtimeMs).toBe(builtAt);
    expect(describeSupervisor(first)).toMatch(/^supervisor: compiled \(/);
  });

  test('without a C compiler, or with one that fails, or when told to, turns keep the shell supervisor', async () => {
    const noCompiler = await buildSupervisor({ PATH: join(cache, 'empty'), XDG_CACHE_HOME: cache });
    expect(noCompiler).toEqual({
      kind: 'script',
      reason: 'no C compiler on PATH (cc, gcc or clang; or $CC)',
    });
    expect(describeSupervisor(noCompiler)).toMatch(/^supervisor: POSIX shell \(no C compiler/);

    const failing = await buildSupervisor({
      PATH: process.env.PATH,
      XDG_CACHE_HOME: cache,
      CC: '/bin/false',
    });
    expect(failing).toEqual({
      kind: 'script',
      reason: '/bin/false could not build src/harness/supervisor.c: exit 1',
    });

    const told = await buildSupervisor({
      PATH: process.env.PATH,
      XDG_CACHE_HOME: cache,
      THE_LOOP_SUPERVISOR: 'shell',
    });
    expect(told).toEqual({ kind: 'script', reason: 'THE_LOOP_SUPERVISOR=shell' });
  });
});
