import type { PullRequestAddress } from '../../../github/work-item-view';
import { workItemDirs } from '../../../work-item/paths';
import { formatRef, parseWorkItemRef, refSlug, RefError, type WorkItemRef } from '../../../work-item/ref';
import { readRecord } from '../../../work-item/registry';
import { createContext, type GlobalOptions } from '../../../service/context';
import { CliError, EXIT, usageError } from '../../../errors';
import { formatWorkItem } from '../../format-work-item';

/** A ref of a kind the-loop does not read (jira:ABC-12, linear:…) gets a message saying so, not a parse error. */
function parseTrackedRef(text: string): WorkItemRef {
  const kind = /^([a-z][a-z0-9-]*):/i.exec(text.trim())?.[1]?.toLowerCase();
  if (kind !== undefined && kind !== 'github')
    throw usageError(
      `'${text.trim()}' is a ${kind} ref: the-loop reads GitHub work items only (github:OWNER/REPO#N). ` +
        `Read the ${kind} ticket where it lives, and track its work through the pull request that delivers it.`,
    );
  try {
    return parseWorkItemRef(text);
  } catch (error) {
    if (error instanceof RefError) throw usageError(error.message);
    throw error;
  }
}

const address = (ref: WorkItemRef): PullRequestAddress => ({
  ref: formatRef(ref),
  repo: { host: ref.host, owner: ref.owner, repo: ref.repo },
  number: ref.number,
});

/** `the-loop item show <ref>`: the work item, its thread and its pull requests, as Markdown or JSON. */
export async function showItem(
  globals: GlobalOptions,
  refText: string,
  options: { format: string },
): Promise<void> {
  if (options.format !== 'markdown' && options.format !== 'json')
    throw usageError(`--format must be markdown or json, not '${options.format}'`);
  const ref = parseTrackedRef(refText);
  const ctx = createContext(globals);
  // The pull requests the-loop has recorded as delivering the item (link-pr, pr create), when it has a session here.
  const dirs = workItemDirs(ctx.config, ctx.stateDir);
  const record = readRecord(dirs, refSlug(ref));
  const linked = (record?.pull_requests ?? []).map((pr) => address(parseWorkItemRef(pr)));
  // The GitHub client is loaded after the checks: a bad ref or format fails without loading it.
  const { createGitHubClientFromConfig } = await import('../../../github/octokit.js');
  const { readWorkItemView } = await import('../../../github/work-item-view.js');
  const github = createGitHubClientFromConfig(ctx.config, { log: (line) => ctx.logger.warn(line) });
  // A failed request reaches main, which words a GitHub failure as one line with the fix.
  const view = await readWorkItemView(github, address(ref), linked);
  if (!view)
    throw new CliError(`${formatRef(ref)}: GitHub knows no such issue or pull request`, EXIT.failure);
  process.stdout.write(
    options.format === 'json' ? `${JSON.stringify(view, null, 2)}\n` : formatWorkItem(view),
  );
}
