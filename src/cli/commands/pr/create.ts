import { Option, type Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { CliError, EXIT, usageError } from '../../../errors';
import { runWithProcessIo, type Io } from '../../io';
import { removedStorageOption } from '../../removed-storage-options';

export type PrCreateOptions = GlobalOptions & {
  workItem: string;
  title: string;
  body?: string;
  bodyFile?: string;
  base: string;
  head?: string;
  repository?: string;
  draft?: true;
};

export function declareCommand(pr: Command<[], GlobalOptions>): void {
  pr.command('create')
    .description('open a pull request and record it as delivering the work item (no link-pr needed)')
    .requiredOption('--work-item <ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .requiredOption('--title <title>', 'pull request title')
    .addOption(new Option('--body <text>', 'pull request body').conflicts('bodyFile'))
    .addOption(new Option('--body-file <file>', 'read the body from a file (- for stdin)').conflicts('body'))
    .option('--base <branch>', 'base branch', 'main')
    .option('--head <branch>', 'head branch (default: the checked-out branch)')
    .option('--repository <repo>', "[HOST/]OWNER/REPO to open it in (default: the work item's)")
    .option('--draft', 'open it as a draft')
    .addOption(removedStorageOption('--registry-dir'))
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** `the-loop pr create`: opens the pull request on GitHub, then records it as delivering the work item. */
export async function run(options: PrCreateOptions, io: Io): Promise<number> {
  // Loaded here, not at start-up: --help and the other commands never pay for the GitHub client.
  // One after another: Node cannot require() an ES module (execa) that a parallel import() is still loading.
  const { createContext } = await import('../../../service/context.js');
  const { parseRepository } = await import('../../../github/api.js');
  const octokit = await import('../../../github/octokit.js');
  const { recordCreatedPullRequest } = await import('../../../use-cases/link-pr.js');
  const { INPUT_FILE_LIMITS, readInputFile } = await import('../../../config/read-input-file.js');
  const ref = await import('../../../work-item/ref.js');
  const { formatRef, parseWorkItemRef, RefError } = ref;
  const ctx = createContext({ config: options.config });
  let workItem: string;
  try {
    workItem = formatRef(parseWorkItemRef(options.workItem));
  } catch (error) {
    if (error instanceof RefError) throw usageError(error.message);
    throw error;
  }
  const item = parseWorkItemRef(workItem);
  const body =
    options.bodyFile !== undefined
      ? readInputFile({
          flag: '--body-file',
          path: options.bodyFile,
          maxBytes: INPUT_FILE_LIMITS.body,
          stdin: true,
        })
      : (options.body ?? '');
  const repo = options.repository
    ? parseRepository(options.repository, item.host)
    : { host: item.host, owner: item.owner, repo: item.repo };
  if (!repo) throw usageError(`--repository '${options.repository ?? ''}' is not [HOST/]OWNER/REPO`);
  let head = options.head;
  if (!head) {
    const { currentBranch } = await import('../../../work-item/git.js');
    const branch = await currentBranch();
    if (branch === null) throw usageError('HEAD is detached (or this is no git checkout): pass --head');
    head = branch;
  }
  if (octokit.resolveGitHubAuth(ctx.config).kind === 'none')
    throw new CliError(
      'no GitHub credentials: set GH_TOKEN or GITHUB_TOKEN, or configure a GitHub App',
      EXIT.failure,
    );
  const github = octokit.createGitHubClientFromConfig(ctx.config, {
    log: (line) => ctx.logger.warn(line),
  });
  const created = await github.createPullRequest(repo, {
    title: options.title,
    head,
    base: options.base,
    body,
    ...(options.draft ? { draft: true } : {}),
  });
  io.out(`opened ${created.url}`);
  const prRef = formatRef({
    provider: 'github',
    host: repo.host,
    owner: repo.owner.toLowerCase(),
    repo: repo.repo.toLowerCase(),
    number: created.number,
  });
  const link = await recordCreatedPullRequest(
    { config: ctx.config, stateDir: ctx.stateDir },
    workItem,
    prRef,
    github,
  );
  io.out(`recorded ${link.pullRequest} as delivering ${workItem}`);
  if (link.note) io.err(`note: ${link.note}`);
  return EXIT.ok;
}
