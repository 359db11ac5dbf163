import examples from '@octokit/webhooks-examples';

/** A deep copy of a real payload from @octokit/webhooks-examples: `event` name, filtered by action. */
export function examplePayload(event: string, action?: string, index = 0): Record<string, unknown> {
  const group = (examples as { name: string; examples: Record<string, unknown>[] }[]).find(
    (e) => e.name === event,
  );
  const matching = (group?.examples ?? []).filter((p) => action === undefined || p.action === action);
  const found = matching[index];
  if (!found) throw new Error(`no ${event}${action ? ` ${action}` : ''} example #${index}`);
  return JSON.parse(JSON.stringify(found)) as Record<string, unknown>;
}

/** The issue_comment created example, with the comment's body and author replaced. */
export function issueCommentPayload(
  body: string,
  login = 'Codertocat',
  labels?: string[],
): Record<string, unknown> {
  const payload = examplePayload('issue_comment', 'created');
  const comment = payload.comment as Record<string, unknown>;
  comment.body = body;
  comment.user = { ...(comment.user as Record<string, unknown>), login };
  payload.sender = { ...(payload.sender as Record<string, unknown>), login };
  if (labels) (payload.issue as Record<string, unknown>).labels = labels.map((name) => ({ name }));
  return payload;
}

/**
 * Names who wrote the payload's `part` (its comment, review, issue or pull request) apart from the delivery's
 * `sender`; a null sender leaves none. GitHub sends the two apart on an edit; a forged payload may too.
 */
export function withUsers(
  payload: Record<string, unknown>,
  part: 'comment' | 'review' | 'issue' | 'pull_request',
  author: string,
  sender: string | null,
): Record<string, unknown> {
  const written = payload[part] as Record<string, unknown>;
  written.user = { ...(written.user as Record<string, unknown>), login: author };
  if (sender === null) delete payload.sender;
  else payload.sender = { ...(payload.sender as Record<string, unknown>), login: sender };
  return payload;
}
