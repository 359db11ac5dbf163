/**
 * A failed GitHub request as one line with what to do, or null when the error is not one. Octokit reports a network
 * failure as an HttpError with status 500 whose cause chain ends in the system error (ENOTFOUND, ECONNREFUSED…).
 */
export function describeGitHubError(error: unknown): string | null {
  if (!(error instanceof Error) || error.name !== 'HttpError') return null;
  const status = (error as { status?: number }).status;
  const url = (error as { request?: { url?: string } }).request?.url;
  const host = url ? hostOf(url) : 'GitHub';
  const network = systemCause(error);
  if (network)
    return `cannot reach GitHub at ${host} (${network}) — check the network, or github.apiUrl in the-loop.yaml`;
  const first = error.message.split('\n')[0] ?? '';
  if (status === 401)
    return `GitHub refused the credentials (401 ${first}) — set GH_TOKEN or GITHUB_TOKEN, or the github.app* settings`;
  if (status === 403 || status === 404)
    return `GitHub answered ${status} (${first}) — check the ref, and that the token may read that repository`;
  return `GitHub answered ${status ?? 'an error'}: ${first}`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The system error's code and message at the end of the cause chain, when the request never got an answer. */
function systemCause(error: Error): string | null {
  // Duck-typed: fetch's errors may come from another realm, where `instanceof Error` is false.
  for (
    let cause = error.cause as NodeJS.ErrnoException | undefined;
    cause;
    cause = cause.cause as typeof cause
  ) {
    const code = cause.code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return cause.message || code;
  }
  return null;
}
