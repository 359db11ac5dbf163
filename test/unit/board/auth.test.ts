import {
  accessCookie,
  COOKIE_NAME,
  cookieValue,
  hasAccess,
  isLoopback,
  LINK_LIFETIME_MS,
  parseCookies,
  signLinkPath,
  verifyLink,
} from '../../../src/board/auth';

const TOKEN = 'a-board-token-of-some-length';

function query(path: string): URLSearchParams {
  return new URL(path, 'http://x').searchParams;
}

describe('board access', () => {
  it('knows loopback addresses and names', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST'])
      expect(isLoopback(host)).toBe(true);
    for (const host of ['0.0.0.0', '10.0.0.5', '::', 'example.com', '127.0.0.1.example.com'])
      expect(isLoopback(host)).toBe(false);
  });

  it('lets everyone in without a token, and only the cookie holder with one', () => {
    expect(hasAccess(null, undefined)).toBe(true);
    expect(hasAccess(TOKEN, undefined)).toBe(false);
    expect(hasAccess(TOKEN, `${COOKIE_NAME}=${TOKEN}`)).toBe(false);
    expect(hasAccess(TOKEN, `other=1; ${COOKIE_NAME}=${cookieValue(TOKEN)}`)).toBe(true);
    expect(hasAccess(TOKEN, `${COOKIE_NAME}=${cookieValue('another-token-entirely')}`)).toBe(false);
    expect(accessCookie(TOKEN)).toMatch(/HttpOnly; SameSite=Strict/);
    expect(accessCookie(TOKEN)).not.toContain(TOKEN);
  });

  it('accepts a one-time link once, before it expires, signed with this token', () => {
    const now = 1_000_000;
    const used = new Set<string>();
    const path = signLinkPath(TOKEN, now);
    expect(path).not.toContain(TOKEN);
    expect(verifyLink('another-token-entirely', query(path), now, used)).toMatch(/not signed/);
    expect(verifyLink(TOKEN, query(path), now + LINK_LIFETIME_MS + 1, used)).toMatch(/expired/);
    expect(verifyLink(TOKEN, query(path), now + 1000, used)).toBeNull();
    expect(verifyLink(TOKEN, query(path), now + 2000, used)).toMatch(/already used/);
    expect(verifyLink(TOKEN, query('/login?n=x&e=1&s=y'), now, used)).toMatch(/malformed/);
    const forged = path.replace(/e=\d+/, `e=${now + 10 * LINK_LIFETIME_MS}`);
    expect(verifyLink(TOKEN, query(forged), now, new Set())).toMatch(/not signed/);
  });

  it('reads cookies, the first of a repeated name winning', () => {
    expect([...parseCookies('a=1; b = 2;c=3=4; a=5; junk')]).toEqual([
      ['a', '1'],
      ['b', '2'],
      ['c', '3=4'],
    ]);
  });
});
