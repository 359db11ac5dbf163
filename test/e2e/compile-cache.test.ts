import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedRegistry } from '../../src/work-item/sample-registry';
import { runCli } from '../support/cli';

/**
 * The CLI keeps its modules' compiled code under the user's cache dir (src/cli/compile-cache.ts). It may only make
 * commands faster: whatever state the cache is in, a command prints what it prints without it.
 */
function scratch(): { dir: string; cacheHome: string; entries: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-compile-cache-'));
  seedRegistry(dir, 20);
  const cacheHome = join(dir, 'cache');
  const entries = () => {
    const root = join(cacheHome, 'the-loop', 'compile-cache');
    return readdirSync(root).flatMap((version) =>
      readdirSync(join(root, version)).map((name) => join(root, version, name)),
    );
  };
  return { dir, cacheHome, entries };
}

/** `sessions list` over the registry scratch() made in `dir`, with the cache under `cacheHome`. */
function sessionsList(dir: string, cacheHome: string) {
  return runCli(['--config', join(dir, 'the-loop.yaml'), 'sessions', 'list'], {
    env: {
      XDG_CACHE_HOME: cacheHome,
      THE_LOOP_STATE_DIR: dir,
      THE_LOOP_COMPILE_CACHE: '',
      THE_LOOP_COMPILE_CACHE_DIR: '',
      // the script's path, whose modules the cache is for (the start-up snapshot has none to load)
      THE_LOOP_SNAPSHOT: '0',
    },
  });
}

/** Each entry's modification time: an entry written again shows as a new one. */
const writeTimes = (files: string[]) => new Map(files.map((file) => [file, statSync(file).mtimeMs]));

/**
 * Runs `sessions list` until a run writes nothing into the cache (a run's writing stops after a time budget, so a
 * busy machine may need a few), checking that every run prints what `expected` printed.
 */
async function untilSettled(
  dir: string,
  cacheHome: string,
  entries: () => string[],
  expected: Awaited<ReturnType<typeof sessionsList>>,
): Promise<void> {
  for (let run = 1; run <= 20; run++) {
    const before = writeTimes(entries());
    expect(await sessionsList(dir, cacheHome)).toEqual(expected);
    if (JSON.stringify([...writeTimes(entries())]) === JSON.stringify([...before])) return;
  }
  throw new Error('the cache was still being written after 20 runs: V8 rejects its entries');
}

describe('the compile cache', () => {
  it('is filled by the first runs, and runs on it print the same until none rewrites anything', async () => {
    const { dir, cacheHome, entries } = scratch();
    const first = await sessionsList(dir, cacheHome);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^WORK ITEM +STATUS/);
    // the first run writes what its exit's time budget allows (on a loaded machine, only part of it)
    expect(entries().length).toBeGreaterThan(0);
    // V8 takes the entries: the next runs add the rest, then a run finds none stale or rejected and writes none
    await untilSettled(dir, cacheHome, entries, first);
    // zod, YAML and commander at least: the cache is in use, so what follows tests it
    expect(entries().length).toBeGreaterThan(100);
  });

  it('a corrupt entry is a miss: the command still works, and the entry is written whole again', async () => {
    const { dir, cacheHome, entries } = scratch();
    const clean = await sessionsList(dir, cacheHome);
    await untilSettled(dir, cacheHome, entries, clean);
    const corrupt = new Map<string, Buffer>();
    entries().forEach((file, i) => {
      const bytes = readFileSync(file);
      // three kinds of damage: a flipped byte in the compiled data, a cut-off file, bytes that were never an entry
      if (i % 3 === 0) bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
      const damaged =
        i % 3 === 0
          ? bytes
          : i % 3 === 1
            ? bytes.subarray(0, bytes.length >> 1)
            : Buffer.from('not an entry');
      writeFileSync(file, damaged);
      corrupt.set(file, damaged);
    });

    await untilSettled(dir, cacheHome, entries, clean);
    for (const [file, damaged] of corrupt) expect(readFileSync(file).equals(damaged)).toBe(false);
  });

  it('a cache dir that cannot be made or written leaves commands working', async () => {
    const { dir, cacheHome } = scratch();
    const reference = await sessionsList(dir, join(dir, 'working-cache'));
    expect(reference.code).toBe(0);
    expect(reference.stdout).toMatch(/^WORK ITEM +STATUS/);
    // a file where the cache dir should be: nothing can be created under it, not even by root
    writeFileSync(cacheHome, 'a file, not a directory\n');
    expect(await sessionsList(dir, cacheHome)).toEqual(reference);
    expect(await sessionsList(dir, cacheHome)).toEqual(reference);
  });

  it('a cache dir that others may write to is not used', async () => {
    const { dir, cacheHome, entries } = scratch();
    const reference = await sessionsList(dir, join(dir, 'working-cache'));
    const shared = join(cacheHome, 'the-loop', 'compile-cache', `node-${process.version}-${process.arch}`);
    mkdirSync(shared, { recursive: true });
    chmodSync(shared, 0o777);
    expect(await sessionsList(dir, cacheHome)).toEqual(reference);
    expect(entries()).toEqual([]);
  });

  it("a module's dynamic import() of an ES module (execa) works with the cache warm", async () => {
    const { dir, cacheHome } = scratch();
    // a claude whose --version fails: loopy run checks it through execa, loaded with import(), and refuses
    const claude = join(dir, 'claude');
    writeFileSync(claude, '#!/bin/sh\necho "no licence here" >&2\nexit 3\n');
    chmodSync(claude, 0o755);
    const env = {
      XDG_CACHE_HOME: cacheHome,
      THE_LOOP_STATE_DIR: join(dir, 'state'),
      THE_LOOP_CONFIG: '',
      THE_LOOP_COMPILE_CACHE: '',
      THE_LOOP_COMPILE_CACHE_DIR: '',
      THE_LOOP_CLAUDE_BIN: claude,
    };
    for (const run of ['cold', 'warm']) {
      const result = await runCli(['run', '--goal', 'say hi', '--harness', 'claude'], {
        env,
        cwd: dir,
        name: 'loopy',
      });
      expect({ run, code: result.code, stderr: result.stderr }).toEqual({
        run,
        code: 2,
        stderr: expect.stringContaining(
          `the claude harness's \`${claude} --version\` failed (no licence here)`,
        ),
      });
    }
  });
});
