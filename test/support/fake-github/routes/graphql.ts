import type { FakeGitHub } from '../server';

/** The one GraphQL query the bridge asks: the issues a pull request closes (closingIssuesReferences). */
export function graphqlAnswer(github: FakeGitHub, body: Record<string, unknown>): unknown {
  const vars = (body.variables ?? {}) as { owner?: string; repo?: string; number?: number };
  const repo = github.repos.get(`${vars.owner}/${vars.repo}`.toLowerCase());
  const item = repo?.items.get(Number(vars.number));
  const nodes = (item?.pull?.closingIssues ?? []).map((n) => ({
    number: n,
    repository: { name: repo?.name, owner: { login: repo?.owner } },
  }));
  return {
    data: {
      repository: repo ? { pullRequest: item?.pull ? { closingIssuesReferences: { nodes } } : null } : null,
    },
  };
}
