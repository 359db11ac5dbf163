import { Option } from '@commander-js/extra-typings';
import { EXIT, usageError } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { sessionsContext, type SessionsCommand, type SessionsOptions } from './shared';

export type LinkPrOptions = SessionsOptions & {
  workItem: string;
  pullRequest?: string;
  discover?: boolean;
  branch?: string;
  headOwner?: string;
  repository?: string;
};

export function declareCommand(sessions: SessionsCommand): void {
  sessions
    .command('link-pr')
    .description(
      "record a pull request as delivering a work item, so its activity routes to the work item's session",
    )
    .requiredOption('--work-item <ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .addOption(
      new Option(
        '--pull-request <ref>',
        'its number in the work item repository (16, #16), or a full ref',
      ).conflicts('discover'),
    )
    .addOption(
      new Option(
        '--discover',
        'ask GitHub for the open pull requests whose head is this checkout’s branch',
      ).conflicts('pullRequest'),
    )
    .option('--branch <branch>', 'with --discover: the head branch (default: the checked-out branch)')
    .option('--head-owner <owner>', "with --discover: the fork's owner when the head branch is a fork's")
    .option('--repository <repo>', 'with --discover: [HOST/]OWNER/REPO to look in')
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `sessions link-pr`: the given pull request, or the discovered ones, recorded as delivering the work item. */
export async function run(options: LinkPrOptions, io: Io): Promise<number> {
  if (!options.pullRequest && !options.discover) {
    throw usageError('link-pr needs exactly one of --pull-request and --discover');
  }
  if (!options.discover && (options.branch || options.headOwner || options.repository)) {
    throw usageError('--branch, --head-owner and --repository go with --discover');
  }
  const { linkPullRequests } = await import('../../../use-cases/link-pr.js');
  const { workItem, results } = await linkPullRequests(
    await sessionsContext(options),
    options.workItem,
    options.pullRequest
      ? { pullRequest: options.pullRequest }
      : {
          discover: true,
          branch: options.branch,
          headOwner: options.headOwner,
          repository: options.repository,
        },
  );
  if (options.discover && results.length === 0) {
    io.out(`no open pull request found for ${workItem}'s branch — nothing recorded`);
  }
  for (const result of results) {
    io.out(
      result.alreadyRecorded
        ? `${result.pullRequest} is already recorded as delivering ${result.workItem}`
        : `recorded ${result.pullRequest} as delivering ${result.workItem}`,
    );
    if (result.note) io.err(`note: ${result.note}`);
  }
  return EXIT.ok;
}
