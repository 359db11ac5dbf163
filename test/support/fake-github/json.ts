import type { FakeComment, FakeItem, FakeRepo } from './model';

/** GitHub's JSON for the fake's state. `apiUrl` is the fake's own address (API links point back at it). */

export function itemJson(apiUrl: string, repo: FakeRepo, item: FakeItem): Record<string, unknown> {
  const full = `${repo.owner}/${repo.name}`;
  const json: Record<string, unknown> = {
    id: item.number + 100000,
    number: item.number,
    title: item.title,
    body: item.body,
    state: item.state,
    state_reason: item.stateReason,
    labels: item.labels.map((name) => ({ name })),
    user: { login: item.user.login, type: item.user.type ?? 'User' },
    created_at: item.createdAt,
    updated_at: item.updatedAt,
    html_url: `https://github.com/${full}/${item.pull ? 'pull' : 'issues'}/${item.number}`,
  };
  if (item.pull)
    json.pull_request = {
      url: `${apiUrl}/repos/${full}/pulls/${item.number}`,
      merged_at: item.pull.merged ? item.updatedAt : null,
    };
  return json;
}

export function pullJson(apiUrl: string, repo: FakeRepo, item: FakeItem): Record<string, unknown> {
  const pull = item.pull;
  if (!pull) throw new Error('not a pull request');
  const full = `${repo.owner}/${repo.name}`;
  return {
    ...itemJson(apiUrl, repo, item),
    merged: pull.merged,
    merged_at: pull.merged ? item.updatedAt : null,
    draft: pull.draft,
    head: {
      ref: pull.head.ref,
      sha: pull.head.sha,
      label: `${pull.head.owner}:${pull.head.ref}`,
      user: { login: pull.head.owner },
      repo: { full_name: `${pull.head.owner}/${repo.name}`, owner: { login: pull.head.owner } },
    },
    base: { ref: pull.base, repo: { full_name: full } },
  };
}

export function commentJson(repo: FakeRepo, c: FakeComment): Record<string, unknown> {
  return {
    id: c.id,
    body: c.body,
    user: { login: c.user.login, type: c.user.type ?? 'User' },
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    html_url: `https://github.com/${repo.owner}/${repo.name}/issues/${c.issue}#issuecomment-${c.id}`,
  };
}
