import { createHmac } from 'node:crypto';
import { isLoopback, sameSecret } from './auth';

/** The form field every state-changing request carries. */
export const CSRF_FIELD = 'csrf';

/** The CSRF token of this board process: a MAC of its random secret, in every form it renders. */
export function csrfToken(secret: string): string {
  return createHmac('sha256', secret).update('the-loop board csrf v1').digest('base64url');
}

/** What a state-changing request says about where it comes from. */
export interface RequestOrigin {
  /** The Host header. */
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
  /** The form's csrf field. */
  formToken: string | undefined;
}

/**
 * Why a state-changing request is refused, or null when it may go on: it must name a Host the board answers to as
 * itself (a loopback board: a loopback name, against DNS rebinding), come from the board's own origin when the
 * browser says where it comes from (Origin, Sec-Fetch-Site), and carry the CSRF token of a page this board rendered.
 */
export function csrfRefusal(
  request: RequestOrigin,
  expected: { token: string; loopbackOnly: boolean },
): string | null {
  const host = request.host;
  if (!host) return 'no Host header';
  const name = host.replace(/:\d+$/, '');
  if (expected.loopbackOnly && !isLoopback(name)) return `Host ${host} is not this board's`;
  if (request.secFetchSite && !['same-origin', 'none'].includes(request.secFetchSite))
    return `a ${request.secFetchSite} request`;
  if (request.origin !== undefined) {
    let originHost: string | null;
    try {
      originHost = new URL(request.origin).host;
    } catch {
      originHost = null;
    }
    if (originHost !== host) return `Origin ${request.origin} is not this board`;
  }
  if (!request.formToken || !sameSecret(request.formToken, expected.token))
    return 'missing or wrong CSRF token';
  return null;
}
