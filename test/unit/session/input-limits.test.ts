import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanChildRequests } from '../../../src/activities/child-requests';
import { parseDuration } from '../../../src/config/duration';
import { parseUsd, parseWholeNumber } from '../../../src/config/numbers';
import { truncateWithMarker } from '../../../src/session/limits';
import { NotARegularFileError, readRegularFileNoFollow } from '../../../src/session/no-follow';

describe('strict numbers and durations', () => {
  test.each([
    ['10', 10],
    ['0x10', null],
    ['1e21', null],
    [' 7', null],
    ['', null],
    ['-1', null],
    ['1.5', null],
    ['1000001', null],
  ])('whole number %p', (text, expected) => {
    expect(parseWholeNumber(text, { min: 1, max: 1_000_000 })).toBe(expected);
  });
  test.each([
    ['2.50', 2.5],
    ['0', null],
    ['-1', null],
    ['Infinity', null],
    ['1e3', null],
  ])('usd %p', (text, expected) => {
    expect(parseUsd(text, { min: 0, max: 1_000_000 })).toBe(expected);
  });
  test.each([
    ['90s', 90_000],
    ['1h30m', 5_400_000],
    ['0.0001s', null],
    ['500ms', null],
    ['99999999d', null],
    ['90', null],
    ['2h ', 7_200_000],
  ])('duration %p', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });
});

describe('size caps', () => {
  test('truncateWithMarker keeps short text and never splits a character', () => {
    expect(truncateWithMarker('short', 100)).toBe('short');
    const cut = truncateWithMarker('é'.repeat(500), 200);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(200);
    expect(cut).not.toContain('\uFFFD');
    expect(cut).toMatch(/more bytes cut/);
  });
});

describe('files under the session are read without following symlinks', () => {
  test('readRegularFileNoFollow refuses a link and reads a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nofollow-'));
    writeFileSync(join(dir, 'secret'), 'root:x:0:0');
    symlinkSync(join(dir, 'secret'), join(dir, 'link'));
    expect(() => readRegularFileNoFollow(join(dir, 'link'), 1024)).toThrow(NotARegularFileError);
    expect(readRegularFileNoFollow(join(dir, 'secret'), 4)).toBe('root');
  });

  test('a child request that is a symlink is rejected, and its target is never read', () => {
    const session = mkdtempSync(join(tmpdir(), 'child-link-'));
    mkdirSync(join(session, 'child_requests'));
    const target = join(session, 'outside.json');
    writeFileSync(target, JSON.stringify({ goal: 'SECRET-CONTENT' }));
    symlinkSync(target, join(session, 'child_requests', 'evil.json'));
    const [scan] = scanChildRequests(session);
    expect(scan?.error).toMatch(/symbolic link/);
    expect(JSON.stringify(scan)).not.toContain('SECRET-CONTENT');
  });
});
