/**
 * The keys and one-line texts that both ingress paths (webhook deliveries, the poller's listings) give the same
 * happening: the key is how a session drops what it already got by the other path, and the text is what it reads.
 */

/** `issue #12 closed`, `pull request #7 merged`… */
export function itemText(isPullRequest: boolean, number: number, what: string): string {
  return `${isPullRequest ? 'pull request' : 'issue'} #${number} ${what}`;
}

/** A review: its state, then its body when it has one. */
export function reviewText(state: string, body: string | null): string {
  return `${state}${body ? `: ${body}` : ''}`;
}

/** A review comment: the line it is on, when it is on one, then its body. */
export function reviewCommentText(path: string, line: number | null | undefined, body: string): string {
  const where = path ? `(${path}${line ? `:${line}` : ''}) ` : '';
  return `${where}${body}`;
}

/** A completed check run: one key per conclusion, so a re-run that concludes differently is news. */
export function checkKey(id: number, conclusion: string | null | undefined): string {
  return `check:${id}:${conclusion ?? 'unknown'}`;
}

export function checkText(name: string, conclusion: string | null | undefined): string {
  return `check ${name}: ${conclusion ?? 'unknown'}`;
}
