import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** The cookie that carries the board's credential, once a one-time link set it. */
export const COOKIE_NAME = 'the_loop_board';
/** How long a one-time link printed by `the-loop board --link` may be used. */
export const LINK_LIFETIME_MS = 10 * 60 * 1000;

/** Whether an address to bind (or a Host header's name) is this machine's loopback only. */
export function isLoopback(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (name === 'localhost' || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

function mac(token: string, what: string): string {
  return createHmac('sha256', token).update(what).digest('base64url');
}

/** Equal strings, compared in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** What the cookie holds: derived from the token, so that the token itself never travels after the link. */
export function cookieValue(token: string): string {
  return mac(token, 'the-loop board cookie v1');
}

/** The path and query of a one-time link: a fresh nonce, when it expires, and the token's MAC over both. */
export function signLinkPath(
  token: string,
  now: number,
  nonce = randomBytes(16).toString('base64url'),
): string {
  const expires = now + LINK_LIFETIME_MS;
  return `/login?n=${nonce}&e=${expires}&s=${mac(token, `link ${nonce} ${expires}`)}`;
}

/**
 * Checks a one-time link's query: signed with the token, not expired, and its nonce not used before (`used`, which
 * this adds it to). Returns null when it is good, else why not.
 */
export function verifyLink(
  token: string,
  query: URLSearchParams,
  now: number,
  used: Set<string>,
): string | null {
  const nonce = query.get('n') ?? '';
  const expires = query.get('e') ?? '';
  const signature = query.get('s') ?? '';
  if (!/^[\w-]{16,64}$/.test(nonce) || !/^\d{1,15}$/.test(expires)) return 'malformed link';
  if (!sameSecret(signature, mac(token, `link ${nonce} ${expires}`))) return 'link not signed by this board';
  if (Number(expires) < now) return 'link expired';
  if (used.has(nonce)) return 'link already used';
  used.add(nonce);
  return null;
}

/** The cookies of a Cookie header, by name (the first of a repeated name wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    if (name && !cookies.has(name)) cookies.set(name, part.slice(at + 1).trim());
  }
  return cookies;
}

/** Whether a request may see the board: always without a token, else only with the cookie a link set. */
export function hasAccess(token: string | null, cookieHeader: string | undefined): boolean {
  if (token === null) return true;
  const sent = parseCookies(cookieHeader).get(COOKIE_NAME);
  return sent !== undefined && sameSecret(sent, cookieValue(token));
}

/** The Set-Cookie header a good link answers with: HttpOnly, SameSite=Strict, for the whole board. */
export function accessCookie(token: string): string {
  return `${COOKIE_NAME}=${cookieValue(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${30 * 24 * 3600}`;
}
