import { readFileSync } from 'node:fs';
import { Command } from '@commander-js/extra-typings';
import { parseRepository } from '../../github/api';
import { createGitHubClientFromConfig, resolveGitHubAuth } from '../../github/octokit';
import { currentBranch } from '../../work-item/git';
import { HostError, linkPullRequest } from '../../work-item/host';
import { formatRef, parseWorkItemRef, RefError } from '../../work-item/ref';
import { createContext, type GlobalOptions } from '../../service/context';
import { CliError, EXIT, usageError } from '../../errors';

export function registerPrCommands(program: Command<[], GlobalOptions>): void {
  const pr = program.command('pr').description('pull requests that deliver work items');
  pr.command('create')
    .description('open a pull request and record it as delivering the work item (no link-pr needed)')
    .requiredOption('--work-item <ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .requiredOption('--title <title>', 'pull request title')
    .option('--body <text>', 'pull request body')
    .option('--body-file <file>', 'read the body from a file (- for stdin)')
    .option('--base <branch>', 'base branch', 'main')
    .option('--head <branch>', 'head branch (default: the checked-out branch)')
    .option('--repository <repo>', "[HOST/]OWNER/REPO to open it in (default: the work item's)")
    .option('--draft', 'open it as a draft')
    .option('--registry-dir <dir>', 'registry directory (default: routing.registryDir)')
    .action(async (options) => {
      const ctx = createContext(program.opts());
      let workItem: string;
      try {
        workItem = formatRef(parseWorkItemRef(options.workItem));
      } catch (error) {
        if (error instanceof RefError) throw usageError(error.message);
        throw error;
      }
      const ref = parseWorkItemRef(workItem);
      if (options.body !== undefined && options.bodyFile !== undefined)
        throw usageError('--body and --body-file are mutually exclusive');
      const body =
        options.bodyFile !== undefined
          ? readFileSync(options.bodyFile === '-' ? 0 : options.bodyFile, 'utf8')
          : (options.body ?? '');
      const repo = options.repository
        ? parseRepository(options.repository, ref.host)
        : { host: ref.host, owner: ref.owner, repo: ref.repo };
      if (!repo) throw usageError(`--repository '${options.repository ?? ''}' is not [HOST/]OWNER/REPO`);
      let head = options.head;
      if (!head) {
        const branch = await currentBranch();
        if (branch === null) throw usageError('HEAD is detached (or this is no git checkout): pass --head');
        head = branch;
      }
      if (resolveGitHubAuth(ctx.config).kind === 'none')
        throw new CliError(
          'no GitHub credentials: set GH_TOKEN or GITHUB_TOKEN, or configure a GitHub App',
          EXIT.failure,
        );
      const github = createGitHubClientFromConfig(ctx.config, { log: ctx.log });
      const created = await github.createPullRequest(repo, {
        title: options.title,
        head,
        base: options.base,
        body,
        ...(options.draft ? { draft: true } : {}),
      });
      console.log(`opened ${created.url}`);
      const prRef = formatRef({
        provider: 'github',
        host: repo.host,
        owner: repo.owner.toLowerCase(),
        repo: repo.repo.toLowerCase(),
        number: created.number,
      });
      try {
        const link = await linkPullRequest(
          { config: ctx.config, stateDir: ctx.stateDir, registryDir: options.registryDir ?? null, github },
          workItem,
          prRef,
        );
        console.log(`recorded ${link.pullRequest} as delivering ${workItem}`);
        if (link.note) process.stderr.write(`note: ${link.note}\n`);
      } catch (error) {
        if (error instanceof HostError)
          throw new CliError(
            `opened ${prRef}, but could not record it: ${error.message} — run the-loop sessions link-pr`,
            EXIT.failure,
          );
        throw error;
      }
    });
}
