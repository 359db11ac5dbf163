import { ErrorCode, type CodedError } from '@slack/web-api';

function coded(error: unknown): CodedError | null {
  return error instanceof Error && typeof (error as CodedError).code === 'string'
    ? (error as CodedError)
    : null;
}

/** Seconds Slack asked to wait (HTTP 429), or null for any other failure. */
export function rateLimitedFor(error: unknown): number | null {
  const e = coded(error);
  if (e?.code !== ErrorCode.RateLimitedError) return null;
  const seconds = (e as unknown as { retryAfter?: unknown }).retryAfter;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : null;
}

/** The Slack error code of an `ok: false` answer (`thread_not_found`, `channel_not_found`…), else null. */
export function platformError(error: unknown): string | null {
  const e = coded(error);
  if (e?.code !== ErrorCode.PlatformError) return null;
  const data = (e as unknown as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : 'unknown_error';
}

/** One line for a warning; never the token (the Web API client sends it in a header, not the URL). */
export function describeSlackError(error: unknown): string {
  const seconds = rateLimitedFor(error);
  if (seconds !== null) return `rate limited (Retry-After ${seconds}s)`;
  const platform = platformError(error);
  if (platform !== null) return platform;
  const e = coded(error);
  if (e?.code === ErrorCode.HTTPError) return `HTTP ${(e as unknown as { statusCode: number }).statusCode}`;
  if (e?.code === ErrorCode.RequestError) {
    const original = (e as unknown as { original?: Error }).original;
    return `request failed: ${(original?.message ?? e.message).split('\n')[0]}`;
  }
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'error';
}
