import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ATTEMPTS_DIR, AttemptSuperseded, takeLease } from '../../../src/activities/attempt-lease';

/** The rank of attempt n of the turn's first dispatch. */
const attempt = (n: number) => ({ dispatch: 1, attempt: n });

function iterationDir(): string {
  return mkdtempSync(join(tmpdir(), 'loopy-lease-'));
}

describe('the lease of a turn: a stale attempt writes nothing once a newer one took the turn', () => {
  it('an attempt writes its files while it holds the lease', async () => {
    const dir = iterationDir();
    const lease = takeLease(dir, attempt(1));
    await lease.write([
      { file: join(dir, 'result.json'), data: '{"a":1}\n' },
      { file: join(dir, 'result_text.txt'), data: 'reply', fsync: false },
    ]);
    expect(lease.held()).toBe(true);
    expect(readFileSync(join(dir, 'result.json'), 'utf8')).toBe('{"a":1}\n');
    expect(readFileSync(join(dir, 'result_text.txt'), 'utf8')).toBe('reply');
    expect(readdirSync(join(dir, ATTEMPTS_DIR, lease.name))).toEqual([]); // nothing left staged
  });

  it('a retry takes the lease over: the earlier attempt write is refused and nothing of it lands', async () => {
    const dir = iterationDir();
    const stale = takeLease(dir, attempt(1));
    const retry = takeLease(dir, attempt(2));
    expect(stale.held()).toBe(false);
    expect(retry.held()).toBe(true);
    await expect(stale.write([{ file: join(dir, 'result.json'), data: 'stale' }])).rejects.toBeInstanceOf(
      AttemptSuperseded,
    );
    expect(existsSync(join(dir, 'result.json'))).toBe(false);
    await retry.write([{ file: join(dir, 'salvage.json'), data: 'retry' }]);
    expect(readFileSync(join(dir, 'salvage.json'), 'utf8')).toBe('retry');
  });

  it('an attempt that starts after a newer one (it was stopped before its first line) gives up at once', () => {
    const dir = iterationDir();
    const newer = takeLease(dir, attempt(3));
    expect(() => takeLease(dir, attempt(2))).toThrow(AttemptSuperseded);
    expect(newer.held()).toBe(true);
    // also once the newer attempt's lease was itself taken over
    takeLease(dir, attempt(4));
    expect(() => takeLease(dir, attempt(3))).toThrow(AttemptSuperseded);
    expect(readdirSync(join(dir, ATTEMPTS_DIR)).filter((n) => n.startsWith('attempt-2'))).toEqual([]);
  });

  it('a turn dispatched again (after a fault blocked it) outranks every attempt of its earlier dispatch', () => {
    const dir = iterationDir();
    const earlier = takeLease(dir, attempt(5));
    const again = takeLease(dir, { dispatch: 2, attempt: 1 });
    expect(earlier.held()).toBe(false);
    expect(again.held()).toBe(true);
    expect(again.name).toMatch(/^dispatch-2\.attempt-1\.[0-9a-f]{8}$/);
    expect(() => takeLease(dir, attempt(6))).toThrow(AttemptSuperseded);
    expect(takeLease(dir, { dispatch: 2, attempt: 2 }).held()).toBe(true);
    expect(() => takeLease(dir, { dispatch: 2, attempt: 1 })).toThrow(AttemptSuperseded);
    const stop = takeLease(dir, 'stop');
    expect(stop.held()).toBe(true);
    expect(() => takeLease(dir, { dispatch: 3, attempt: 1 })).toThrow(AttemptSuperseded);
  });

  it('the salvage of a stopped session outranks every attempt of the turn', () => {
    const dir = iterationDir();
    const seventh = takeLease(dir, attempt(7));
    const stop = takeLease(dir, 'stop');
    expect(seventh.held()).toBe(false);
    expect(stop.held()).toBe(true);
    expect(() => takeLease(dir, attempt(8))).toThrow(AttemptSuperseded);
  });

  it('a write taken over while its files were being staged does not land', async () => {
    const dir = iterationDir();
    const stale = takeLease(dir, attempt(1));
    const writing = stale.write([
      { file: join(dir, 'result.json'), data: 'stale' },
      { file: join(dir, 'pending_finished_request.json'), data: 'stale' },
    ]);
    takeLease(dir, attempt(2)); // the write has begun (its first file is being opened), and has renamed nothing yet
    await expect(writing).rejects.toBeInstanceOf(AttemptSuperseded);
    expect(existsSync(join(dir, 'result.json'))).toBe(false);
    expect(existsSync(join(dir, 'pending_finished_request.json'))).toBe(false);
  });

  it('a write that committed (its first file renamed) and was cut short is completed by the takeover', () => {
    // What a writer killed between the renames of one write leaves: the first file in place, the rest staged.
    const dir = iterationDir();
    const crashed = takeLease(dir, attempt(1));
    const own = join(dir, ATTEMPTS_DIR, crashed.name);
    writeFileSync(join(dir, 'result.json'), 'result');
    writeFileSync(join(own, '001-result_text.txt'), 'text');
    writeFileSync(join(own, '002-pending_finished_request.json'), 'pending');
    takeLease(dir, attempt(2));
    expect(readFileSync(join(dir, 'result_text.txt'), 'utf8')).toBe('text');
    expect(readFileSync(join(dir, 'pending_finished_request.json'), 'utf8')).toBe('pending');
  });

  it('a write cut short before its first rename is dropped by the takeover', () => {
    const dir = iterationDir();
    const crashed = takeLease(dir, attempt(1));
    const own = join(dir, ATTEMPTS_DIR, crashed.name);
    writeFileSync(join(own, '000-result.json'), 'result');
    writeFileSync(join(own, '001-pending_finished_request.json'), 'pending');
    writeFileSync(join(own, '002-goal_check.json.tmp'), 'half');
    takeLease(dir, attempt(2));
    expect(readdirSync(dir).sort()).toEqual([ATTEMPTS_DIR]);
    expect(readdirSync(join(dir, ATTEMPTS_DIR, `${crashed.name}.superseded`))).toEqual([]);
  });

  it('refuses a file outside the iteration directory', async () => {
    const dir = iterationDir();
    const lease = takeLease(dir, attempt(1));
    await expect(lease.write([{ file: join(dir, 'sub', 'x.json'), data: '' }])).rejects.toThrow(
      /must be a file of/,
    );
  });

  it('a lease already moved aside is left as it is', () => {
    const dir = iterationDir();
    const first = takeLease(dir, attempt(1));
    renameSync(join(dir, ATTEMPTS_DIR, first.name), join(dir, ATTEMPTS_DIR, `${first.name}.superseded`));
    expect(takeLease(dir, attempt(2)).held()).toBe(true);
    expect(readdirSync(join(dir, ATTEMPTS_DIR)).filter((n) => n.startsWith('attempt-1'))).toEqual([
      `${first.name}.superseded`,
    ]);
  });
});
