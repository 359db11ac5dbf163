import type { GitHubClient } from '../github/api';
import { HostError, hostDirs, linkPullRequest, locate, type LinkResult } from '../work-item/host';
import { formatRef, parsePullRequestRef, parseWorkItemRef } from '../work-item/ref';
import { readRecord } from '../work-item/registry';
import { CliError, EXIT, usageError } from '../errors';
import { asCliError, canonicalWorkItem, githubClient, hostContext, type SessionsContext } from './context';
import { discoverPullRequests, type DiscoverOptions } from './discover-pull-requests';

export type LinkSelection = { pullRequest: string } | ({ discover: true } & DiscoverOptions);

/**
 * Records pull requests as delivering a work item (their activity then routes to its session): the one given,
 * or the open ones GitHub finds for this checkout's branch. Empty when discovery found none.
 */
export async function linkPullRequests(
  ctx: SessionsContext,
  workItemText: string,
  selection: LinkSelection,
): Promise<{ workItem: string; results: LinkResult[] }> {
  const workItem = canonicalWorkItem(workItemText);
  let pullRequests: string[] = [];
  if ('pullRequest' in selection) {
    let pr: string;
    try {
      pr = formatRef(parsePullRequestRef(selection.pullRequest, parseWorkItemRef(workItem)));
    } catch (error) {
      asCliError(error);
    }
    if (pr === workItem) throw usageError(`${workItem} cannot be linked to itself`);
    pullRequests = [pr];
  }
  const github = await githubClient(ctx);
  const host = hostContext(ctx, github);
  const at = await locate(host, workItem);
  if (!(await readRecord(await hostDirs(host), at.slug))) {
    throw new CliError(
      `${workItem}: no session record on this machine — register the session first (the-loop sessions register)`,
      EXIT.failure,
    );
  }
  if ('discover' in selection) {
    const client =
      github ??
      (await import('../github/octokit.js')).createGitHubClientFromConfig(ctx.config, {
        log: () => undefined,
      });
    pullRequests = await discoverPullRequests(workItem, selection, client);
  }
  const results: LinkResult[] = [];
  for (const pr of pullRequests) {
    try {
      results.push(await linkPullRequest(host, workItem, pr));
    } catch (error) {
      asCliError(error);
    }
  }
  return { workItem, results };
}

/** `pr create`: the pull request just opened, recorded as delivering the work item (no link-pr needed). */
export async function recordCreatedPullRequest(
  ctx: SessionsContext,
  workItem: string,
  pullRequest: string,
  github: GitHubClient,
): Promise<LinkResult> {
  try {
    return await linkPullRequest(hostContext(ctx, github), workItem, pullRequest);
  } catch (error) {
    if (error instanceof HostError) {
      throw new CliError(
        `opened ${pullRequest}, but could not record it: ${error.message} — run the-loop sessions link-pr`,
        EXIT.failure,
      );
    }
    throw error;
  }
}
