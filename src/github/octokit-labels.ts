import type { GitHubClient } from './api';
import type { Connect } from './octokit-connect';

/** An item's labels: the auto-execute labels link-pr adds, and the phase labels of the process graph. */
export function labelRequests(octokit: Connect): Pick<GitHubClient, 'addLabels' | 'removeLabel'> {
  return {
    async addLabels(repo, issueNumber, labels) {
      await (
        await octokit()
      ).request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
        owner: repo.owner,
        repo: repo.repo,
        issue_number: issueNumber,
        labels,
      });
    },
    async removeLabel(repo, issueNumber, label) {
      try {
        await (
          await octokit()
        ).request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', {
          owner: repo.owner,
          repo: repo.repo,
          issue_number: issueNumber,
          name: label,
        });
      } catch (error) {
        if ((error as { status?: number }).status !== 404) throw error;
      }
    },
  };
}
