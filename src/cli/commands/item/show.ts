import type { Command } from '@commander-js/extra-typings';
import type { PullRequestAddress } from '../../../github/work-item-view';
import type { WorkItemRef } from '../../../work-item/ref';
import type { GlobalOptions } from '../../../service/context';
import { CliError, EXIT, usageError } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { removedStorageOption } from '../../removed-storage-options';

export type ItemShowOptions = GlobalOptions & { format: string };

export function declareCommand(item: Command<[], GlobalOptions>): void {
  item
    .command('show')
    .description(
      'print a work item for an agent: title, body, labels, the whole comment thread, and its pull requests with their reviews and checks',
    )
    .argument('<ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .option('--format <format>', 'markdown or json', 'markdown')
    .addOption(removedStorageOption('--registry-dir'))
    .action((refText, _options, command) =>
      runWithProcessIo(
        (options: ItemShowOptions, io) => run(refText, options, io),
        command.optsWithGlobals(),
      ),
    );
}

/** A ref of a kind the-loop does not read (jira:ABC-12, linear:…) gets a message saying so, not a parse error. */
async function parseTrackedRef(text: string): Promise<WorkItemRef> {
  const kind = /^([a-z][a-z0-9-]*):/i.exec(text.trim())?.[1]?.toLowerCase();
  if (kind !== undefined && kind !== 'github')
    throw usageError(
      `'${text.trim()}' is a ${kind} ref: the-loop reads GitHub work items only (github:OWNER/REPO#N). ` +
        `Read the ${kind} ticket where it lives, and track its work through the pull request that delivers it.`,
    );
  const { parseWorkItemRef, RefError } = await import('../../../work-item/ref.js');
  try {
    return parseWorkItemRef(text);
  } catch (error) {
    if (error instanceof RefError) throw usageError(error.message);
    throw error;
  }
}

/** `the-loop item show <ref>`: the work item, its thread and its pull requests, as Markdown or JSON. */
export async function run(refText: string, options: ItemShowOptions, io: Io): Promise<number> {
  if (options.format !== 'markdown' && options.format !== 'json')
    throw usageError(`--format must be markdown or json, not '${options.format}'`);
  const ref = await parseTrackedRef(refText);
  const { formatRef, parseWorkItemRef, refSlug } = await import('../../../work-item/ref.js');
  const { createContext } = await import('../../../service/context.js');
  const { workItemDirs } = await import('../../../work-item/paths.js');
  const { readRecord } = await import('../../../work-item/registry.js');
  const address = (of: WorkItemRef): PullRequestAddress => ({
    ref: formatRef(of),
    repo: { host: of.host, owner: of.owner, repo: of.repo },
    number: of.number,
  });
  const ctx = createContext({ config: options.config });
  // The pull requests the-loop has recorded as delivering the item (link-pr, pr create), when it has a session here.
  const dirs = workItemDirs(ctx.config, ctx.stateDir);
  const record = readRecord(dirs, refSlug(ref));
  const linked = (record?.pull_requests ?? []).map((pr) => address(parseWorkItemRef(pr)));
  // The GitHub client is loaded after the checks: a bad ref or format fails without loading it.
  const { createGitHubClientFromConfig } = await import('../../../github/octokit.js');
  const { readWorkItemView } = await import('../../../github/work-item-view.js');
  const { formatWorkItem } = await import('../../format-work-item.js');
  const github = createGitHubClientFromConfig(ctx.config, { log: (line) => ctx.logger.warn(line) });
  // A failed request reaches main, which words a GitHub failure as one line with the fix.
  const view = await readWorkItemView(github, address(ref), linked);
  if (!view)
    throw new CliError(`${formatRef(ref)}: GitHub knows no such issue or pull request`, EXIT.failure);
  // The Markdown ends in a newline, which io.out adds.
  io.out(options.format === 'json' ? JSON.stringify(view, null, 2) : formatWorkItem(view).replace(/\n$/, ''));
  return EXIT.ok;
}
