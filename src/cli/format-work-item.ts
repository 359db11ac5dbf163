import type { CheckRun, IssueComment, Review, ReviewComment } from '../github/api';
import type { PullRequestView, WorkItemView } from '../github/work-item-view';

/** The work item as Markdown an agent reads: the item, its whole thread, and each pull request's reviews and CI. */
export function formatWorkItem(view: WorkItemView): string {
  const { item } = view;
  const kind = item.isPullRequest ? 'Pull request' : 'Issue';
  const state = item.merged ? 'merged' : item.state + (item.stateReason ? ` (${item.stateReason})` : '');
  const lines = [
    `# ${kind} ${view.ref}: ${item.title}`,
    '',
    `- State: ${state}`,
    `- Author: @${item.author.login}`,
    `- Labels: ${item.labels.length > 0 ? item.labels.join(', ') : '(none)'}`,
    `- URL: ${item.url}`,
    '',
    '## Description',
    '',
    item.body.trim() === '' ? '(no description)' : item.body.trim(),
    '',
    ...thread('## Comments', view.comments),
  ];
  if (view.pullRequest) lines.push(...pullRequestSection('## This pull request', view.pullRequest));
  lines.push('## Linked pull requests', '');
  if (view.linkedPullRequests.length === 0) lines.push('(none recorded yet)', '');
  for (const pr of view.linkedPullRequests)
    lines.push(...pullRequestSection(`### ${pr.ref}: ${pr.title}`, pr));
  return `${lines.join('\n').trimEnd()}\n`;
}

function comment(c: IssueComment): string[] {
  return [`### @${c.user.login} at ${c.createdAt}`, '', c.body.trim() === '' ? '(empty)' : c.body.trim(), ''];
}

function thread(heading: string, comments: readonly IssueComment[]): string[] {
  if (comments.length === 0) return [heading, '', '(no comments)', ''];
  return [heading, '', ...comments.flatMap(comment)];
}

function review(r: Review): string[] {
  const at = r.submittedAt ? ` at ${r.submittedAt}` : '';
  return [`- @${r.user.login}: ${r.state}${at}${r.body.trim() ? ` — ${r.body.trim()}` : ''}`];
}

function reviewComment(c: ReviewComment): string[] {
  const where = c.line === null ? c.path : `${c.path}:${c.line}`;
  return [`- @${c.user.login} on ${where}: ${c.body.trim()}`];
}

function checkRun(run: CheckRun): string {
  return `- ${run.name}: ${run.status === 'completed' ? (run.conclusion ?? 'completed') : run.status}`;
}

function pullRequestSection(heading: string, pr: PullRequestView): string[] {
  const state = pr.merged ? 'merged' : pr.state;
  const lines = [
    heading,
    '',
    `- State: ${state}`,
    `- Branch: ${pr.headRef} at ${pr.headSha}`,
    `- URL: ${pr.url}`,
  ];
  if (pr.labels.length > 0) lines.push(`- Labels: ${pr.labels.join(', ')}`);
  lines.push('');
  if (heading.startsWith('###') && pr.body.trim() !== '') lines.push(pr.body.trim(), '');
  if (pr.comments.length > 0) lines.push('Comments:', '', ...pr.comments.flatMap(comment));
  lines.push('Reviews:', '', ...(pr.reviews.length > 0 ? pr.reviews.flatMap(review) : ['(none)']), '');
  if (pr.reviewComments.length > 0)
    lines.push('Review comments:', '', ...pr.reviewComments.flatMap(reviewComment), '');
  lines.push('Checks:', '', ...(pr.checkRuns.length > 0 ? pr.checkRuns.map(checkRun) : ['(none)']), '');
  return lines;
}
