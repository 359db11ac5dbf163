import { existsSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { Command, Option } from '@commander-js/extra-typings';
import type { Client } from '@temporalio/client';
import type { GitHubClient } from '../../github/api';
import { parseRepository } from '../../github/api';
import { createGitHubClientFromConfig, resolveGitHubAuth } from '../../github/octokit';
import { withMarker } from '../../bridge/marker';
import { declaredEnvironment, environmentWithout, fingerprint } from '../../work-item/env';
import {
  closeSession,
  cleanupLocal,
  hostDirs,
  HostError,
  linkPullRequest,
  locate,
  recordControl,
  restartSession,
  type HostContext,
  type RestartRow,
} from '../../work-item/host';
import {
  AlreadyRegisteredError,
  closeWorkItem,
  controlWorkItem,
  registerWorkItem,
  runningWorkItem,
  updateFailureMessage,
  type WorkItemQueues,
} from '../../temporal/work-items';
import { appendWorkItemEvent } from '../../work-item/event-log';
import { currentBranch, originUrl } from '../../work-item/git';
import { Tmux } from '../../work-item/tmux';
import {
  formatRef,
  parsePullRequestRef,
  parseWorkItemRef,
  RefError,
  tmuxSessionName,
} from '../../work-item/ref';
import { listRecords, readRecord } from '../../work-item/registry';
import { applyReset, heldWorkItems, parseRefList, planReset } from '../../work-item/reset';
import { recordStatuses, type RecordStatus, type RegistryRecord } from '../../work-item/schemas';
import {
  restartUpdate,
  type ControlReport,
  type WorkItemControlCommand,
} from '../../workflows/work-item-messages';
import { defaultHostId, hostQueueName } from '../../worker/queues';
import { connectClient } from '../../temporal/connection';
import { createContext, type CliContext, type GlobalOptions } from '../../service/context';
import { CliError, EXIT, usageError } from '../../errors';
import { resolveTarget } from '../../temporal/target';

type RegistryOption = { registryDir?: string; portableDir?: string };

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

function parseRef(text: string): string {
  try {
    return formatRef(parseWorkItemRef(text));
  } catch (error) {
    if (error instanceof RefError) throw usageError(error.message);
    throw error;
  }
}

function hostContext(ctx: CliContext, options: RegistryOption, github?: GitHubClient | null): HostContext {
  return {
    config: ctx.config,
    stateDir: ctx.stateDir,
    registryDir: options.registryDir ? resolve(options.registryDir) : null,
    portableDir: options.portableDir ? resolve(options.portableDir) : null,
    ...(github ? { github } : {}),
  };
}

/** The CLI's GitHub client, when credentials are configured; null otherwise (posting then only warns). */
function githubClient(ctx: CliContext): GitHubClient | null {
  try {
    if (resolveGitHubAuth(ctx.config).kind === 'none') return null;
    return createGitHubClientFromConfig(ctx.config, { log: () => undefined });
  } catch {
    return null;
  }
}

function queues(ctx: CliContext, options: RegistryOption): WorkItemQueues {
  const taskQueue = ctx.config.temporal.taskQueue;
  return {
    taskQueue,
    hostQueue: hostQueueName(taskQueue, defaultHostId(ctx.config)),
    registryDir: options.registryDir ? resolve(options.registryDir) : null,
    portableDir: options.portableDir ? resolve(options.portableDir) : null,
  };
}

async function withClient<T>(ctx: CliContext, fn: (client: Client) => Promise<T>): Promise<T> {
  const connected = await connectClient(resolveTarget(ctx.config, ctx.stateDir));
  try {
    return await fn(connected.client);
  } finally {
    await connected.close();
  }
}

function hostFailure(error: unknown): never {
  if (error instanceof HostError) {
    throw new CliError(error.message, error.kind === 'bad-input' ? EXIT.usage : EXIT.failure);
  }
  if (error instanceof RefError) throw usageError(error.message);
  throw error;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'local user';
  }
}

// ---------------------------------------------------------------------------------------------------------
// list

const COLUMNS: { title: string; value: (r: RegistryRecord) => string }[] = [
  { title: 'WORK ITEM', value: (r) => r.work_item },
  { title: 'STATUS', value: (r) => r.status },
  {
    title: 'LAST CONTROL',
    value: (r) => (r.last_control ? `${r.last_control.command} ${r.last_control.at}` : '-'),
  },
  { title: 'HARNESS', value: (r) => r.harness },
  { title: 'CONVERSATION', value: (r) => r.harness_session_id ?? '-' },
  { title: 'TMUX', value: (r) => (r.tmux ? r.tmux.session : '-') },
  { title: 'PRS', value: (r) => (r.pull_requests.length > 0 ? r.pull_requests.join(',') : '-') },
  { title: 'CWD', value: (r) => r.cwd ?? '-' },
];

export function formatTable(records: RegistryRecord[]): string {
  const rows = records.map((r) => COLUMNS.map((c) => c.value(r)));
  const widths = COLUMNS.map((c, i) => Math.max(c.title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(COLUMNS.map((c) => c.title)), ...rows.map(line)].join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// restart output

function restartLine(row: RestartRow): string {
  switch (row.outcome) {
    case 'restarted':
      return `${row.workItem} restarted`;
    case 'would-restart':
      return `${row.workItem} would be restarted`;
    case 'skipped':
      return `${row.workItem} skipped — ${row.reason ?? ''}`;
    case 'unverified':
      return `${row.workItem} restarted, environment unverified — ${row.reason ?? 'it could not be read'}`;
    case 'mismatch':
      return `${row.workItem} restarted with a mismatched environment: ${row.mismatches
        .map((m) =>
          m.problem === 'held'
            ? `${m.name} held; a session must not hold it`
            : `${m.name} ${m.problem === 'missing' ? 'missing' : 'differs'} (should be ${m.expected ?? '?'})`,
        )
        .join(', ')}`;
  }
}

// ---------------------------------------------------------------------------------------------------------

export function registerSessionsCommands(program: Command<[], GlobalOptions>): void {
  const sessions = program
    .command('sessions')
    .description('the work-item ↔ harness-session registry, execution control, reset and restart');
  const registryOption = () =>
    new Option(
      '--registry-dir <dir>',
      'registry directory (default: routing.registryDir, <state.root>/local)',
    );
  const portableOption = () =>
    new Option('--portable-dir <dir>', 'where the portable records live (default: <state.root>/portable)');

  sessions
    .command('register')
    .description('record a harness session as the one active session of a work item')
    .requiredOption('--work-item <ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .addOption(new Option('--harness <name>', 'claude or cursor').makeOptionMandatory())
    .requiredOption('--harness-session-id <id>', 'Claude session id, or Cursor chat id')
    .option('--cwd <dir>', 'directory the session runs in — resume is scoped to it', '.')
    .option('--force', 'replace an existing active registration for this work item')
    .addOption(registryOption())
    .addOption(portableOption())
    .action(async (options) => {
      const ctx = createContext(program.opts());
      const workItem = parseRef(options.workItem);
      if (options.harness !== 'claude' && options.harness !== 'cursor') {
        throw usageError(`--harness must be claude or cursor, not '${options.harness}'`);
      }
      const conversationId = options.harnessSessionId.trim();
      if (conversationId === '' || /\s/.test(conversationId)) {
        throw usageError(
          `--harness-session-id '${options.harnessSessionId}' is empty or contains whitespace`,
        );
      }
      const cwd = resolve(options.cwd);
      if (!existsSync(cwd) || !statSync(cwd).isDirectory())
        throw usageError(`--cwd ${cwd} is not a directory`);
      const report = await withClient(ctx, async (client) => {
        try {
          return await registerWorkItem(client, queues(ctx, options), {
            workItem,
            harness: options.harness as 'claude' | 'cursor',
            conversationId,
            cwd,
            force: options.force === true,
          });
        } catch (error) {
          if (error instanceof AlreadyRegisteredError) throw new CliError(error.message, EXIT.failure);
          if (
            options.force &&
            /terminated|completed|not found|aborted by closing/i.test(updateFailureMessage(error))
          ) {
            throw new CliError(`${workItem}: this registration was replaced by a later --force registration`);
          }
          throw new CliError(`could not register ${workItem}: ${updateFailureMessage(error)}`, EXIT.failure);
        }
      });
      for (const warning of report.warnings) err(`warning: ${warning}`);
      out(
        `registered ${report.workItem}: ${report.harness} session ${report.conversationId ?? '-'} in ${report.cwd ?? '-'}${options.force ? ' (replacing any earlier registration)' : ''}`,
      );
    });

  sessions
    .command('link-pr')
    .description(
      "record a pull request as delivering a work item, so its activity routes to the work item's session",
    )
    .requiredOption('--work-item <ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .option('--pull-request <ref>', 'its number in the work item repository (16, #16), or a full ref')
    .option('--discover', 'ask GitHub for the open pull requests whose head is this checkout’s branch')
    .option('--branch <branch>', 'with --discover: the head branch (default: the checked-out branch)')
    .option('--head-owner <owner>', "with --discover: the fork's owner when the head branch is a fork's")
    .option('--repository <repo>', 'with --discover: [HOST/]OWNER/REPO to look in')
    .addOption(registryOption())
    .addOption(portableOption())
    .action(async (options) => {
      const ctx = createContext(program.opts());
      const workItem = parseRef(options.workItem);
      const ref = parseWorkItemRef(workItem);
      if (Boolean(options.pullRequest) === Boolean(options.discover)) {
        throw usageError('link-pr needs exactly one of --pull-request and --discover');
      }
      if (!options.discover && (options.branch || options.headOwner || options.repository)) {
        throw usageError('--branch, --head-owner and --repository go with --discover');
      }
      const github = githubClient(ctx);
      const host = hostContext(ctx, options, github);
      let pullRequests: string[];
      if (options.pullRequest) {
        let pr: string;
        try {
          pr = formatRef(parsePullRequestRef(options.pullRequest, ref));
        } catch (error) {
          if (error instanceof RefError) throw usageError(error.message);
          throw error;
        }
        if (pr === workItem) throw usageError(`${workItem} cannot be linked to itself`);
        pullRequests = [pr];
      } else {
        pullRequests = [];
      }
      if (!readRecord(hostDirs(host), locate(host, workItem).slug)) {
        throw new CliError(
          `${workItem}: no session record on this machine — register the session first (the-loop sessions register)`,
          EXIT.failure,
        );
      }
      if (options.discover) {
        pullRequests = await discoverPullRequests(ctx, workItem, options, github);
        if (pullRequests.length === 0) {
          out(`no open pull request found for ${workItem}'s branch — nothing recorded`);
          return;
        }
      }
      for (const pr of pullRequests) {
        try {
          const result = await linkPullRequest(host, workItem, pr);
          out(
            result.alreadyRecorded
              ? `${result.pullRequest} is already recorded as delivering ${workItem}`
              : `recorded ${result.pullRequest} as delivering ${workItem}`,
          );
          if (result.note) err(`note: ${result.note}`);
        } catch (error) {
          hostFailure(error);
        }
      }
    });

  sessions
    .command('list')
    .description("each session's status — paused included — and its last control command")
    .option('--status <status>', 'active, paused or closed')
    .option('--format <format>', 'table or json', 'table')
    .addOption(registryOption())
    .addOption(portableOption())
    .action((options) => {
      const ctx = createContext(program.opts());
      if (options.status !== undefined && !(recordStatuses as readonly string[]).includes(options.status)) {
        throw usageError(`--status must be active, paused or closed, not '${options.status}'`);
      }
      if (options.format !== 'table' && options.format !== 'json') {
        throw usageError(`--format must be table or json, not '${options.format}'`);
      }
      const dirs = hostDirs(hostContext(ctx, options));
      const { records, invalid } = listRecords(dirs.registryDir, options.status as RecordStatus | undefined);
      for (const bad of invalid) err(`warning: skipped ${bad.error}`);
      if (options.format === 'json') out(JSON.stringify(records, null, 2));
      else if (records.length === 0)
        err(`no sessions${options.status ? ` with status ${options.status}` : ''} in ${dirs.registryDir}`);
      else out(formatTable(records));
    });

  sessions
    .command('attach')
    .description('attach to the tmux session of a work item (always read-only once it is closed)')
    .requiredOption('--work-item <ref>', 'which session to attach to')
    .option('--read-only', 'observe without a keyboard (tmux attach -r)')
    .addOption(registryOption())
    .addOption(portableOption())
    .action(async (options) => {
      const ctx = createContext(program.opts());
      const workItem = parseRef(options.workItem);
      const host = hostContext(ctx, options);
      const record = readRecord(hostDirs(host), locate(host, workItem).slug);
      if (!record) throw new CliError(`${workItem}: no session record on this machine`, EXIT.failure);
      if (!record.tmux) {
        throw new CliError(
          `${workItem}: no tmux session is recorded yet — its first dispatched event (or \`the-loop sessions start\`) spawns one`,
          EXIT.failure,
        );
      }
      const readOnly = options.readOnly === true || record.status === 'closed';
      if (record.status === 'closed' && !options.readOnly) err(`${workItem} is closed: attaching read-only`);
      const env = environmentWithout(declaredEnvironment(ctx.config).keptOut);
      delete env.TMUX;
      const tmux = new Tmux(record.tmux.socket, env);
      const has = await tmux.hasSession(record.tmux.session).catch((error: unknown) => {
        throw new CliError((error as Error).message, EXIT.failure);
      });
      if (!has) {
        throw new CliError(
          `${workItem}: tmux session ${record.tmux.session} no longer exists on socket ${record.tmux.socket}${record.status === 'closed' ? '' : ' — `the-loop sessions start` brings it back'}`,
          EXIT.failure,
        );
      }
      const status = await tmux.attach(record.tmux.session, readOnly);
      if (status !== 0) throw new CliError(`tmux attach exited with ${status ?? 'a signal'}`, EXIT.failure);
    });

  sessions
    .command('close')
    .description('close a work item session (the harness is ended; tmux kept or killed)')
    .requiredOption('--work-item <ref>', 'which session to close')
    .addOption(new Option('--keep-tmux', 'keep the tmux session (transcript readable)').conflicts('killTmux'))
    .addOption(new Option('--kill-tmux', 'end the tmux session for good').conflicts('keepTmux'))
    .addOption(registryOption())
    .addOption(portableOption())
    .action(async (options) => {
      const ctx = createContext(program.opts());
      const workItem = parseRef(options.workItem);
      const keepTmux = options.keepTmux ? true : options.killTmux ? false : null;
      const host = hostContext(ctx, options);
      const record = readRecord(hostDirs(host), locate(host, workItem).slug);
      const report = await withClient(ctx, async (client) => {
        try {
          return await closeWorkItem(client, workItem, { keepTmux, reason: 'closed by hand' });
        } catch (error) {
          throw new CliError(`could not close ${workItem}: ${updateFailureMessage(error)}`, EXIT.failure);
        }
      });
      if (report) {
        for (const line of report.lines) out(line);
        out(`closed ${workItem}`);
        return;
      }
      if (!record) throw new CliError(`${workItem}: no session record on this machine`, EXIT.failure);
      if (record.status === 'closed') {
        out(`${workItem} is already closed`);
        return;
      }
      const local = await closeSession(host, { workItem, keepTmux, reason: 'closed by hand' });
      for (const line of local.lines) out(line);
      out(`closed ${workItem}`);
    });

  sessions
    .command('reset')
    .description('forget everything this machine remembers about a work item, so it starts over')
    .option('--work-item <ref>', 'which work item to reset (repeatable)', collect, [] as string[])
    .option('--all', 'every work item this machine holds state for')
    .option('--dry-run', 'report what would go; change nothing')
    .addOption(registryOption())
    .addOption(portableOption())
    .action(async (options) => {
      const ctx = createContext(program.opts());
      if (options.all && options.workItem.length > 0)
        throw usageError('--all and --work-item are mutually exclusive');
      if (!options.all && options.workItem.length === 0) {
        throw usageError('reset needs --work-item (repeatable) or --all: a bare reset is a usage error');
      }
      let refs: string[];
      try {
        refs = parseRefList(options.workItem);
      } catch (error) {
        if (error instanceof RefError) throw usageError(`${error.message} — nothing was reset`);
        throw error;
      }
      const host = hostContext(ctx, options);
      if (options.all) refs = heldWorkItems(host);
      const dry = options.dryRun === true;
      const webhookPid = ctx.stateDir ? `${ctx.stateDir}/webhook.pid` : null;
      if (webhookPid && existsSync(webhookPid)) {
        err(
          'warning: gh-webhook appears to be running: it holds poll state in memory and may write it back — stop it first for a clean slate',
        );
      }
      if (!ctx.config.routing.requireStartCommand) {
        err(
          'warning: routing.requireStartCommand is false: with the poll section cleared, the next poll cycle may re-spawn these items rather than wait for a start',
        );
      }
      let count = 0;
      await withClient(ctx, async (client) => {
        for (const workItem of refs) {
          const plan = planReset(host, workItem);
          const live = await runningWorkItem(client, workItem);
          let checkoutGone = false;
          if (live) {
            if (dry) out(`${workItem}: would end a live session`);
            else {
              let report;
              try {
                report = await closeWorkItem(client, workItem, { keepTmux: null, reason: 'reset' });
              } catch (error) {
                throw new CliError(
                  `${workItem}: could not end the live session: ${updateFailureMessage(error)}`,
                );
              }
              out(`${workItem}: ended a live session`);
              checkoutGone = Boolean(report?.removedCheckout);
            }
          } else if (
            plan.hasRecord &&
            readRecord(hostDirs(host), locate(host, workItem).slug)?.status !== 'closed'
          ) {
            if (dry) out(`${workItem}: would end a live session`);
            else {
              const report = await closeSession(host, { workItem, keepTmux: null, reason: 'reset' });
              if (report.endedLiveSession) out(`${workItem}: ended a live session`);
              checkoutGone = report.removedCheckout !== null;
            }
          }
          const items = [
            plan.hasRecord && 'session',
            plan.hasControl && 'control',
            plan.hasPoll && 'poll',
          ].filter((x): x is string => typeof x === 'string');
          const dropCheckout = plan.checkout !== null && !ctx.config.workspace.keepCheckoutOnClose;
          if (dry) {
            if (dropCheckout)
              out(`${workItem}: would remove the workspace checkout — uncommitted work in it is gone`);
            out(
              items.length > 0
                ? `${workItem}: would reset — remove ${items.join(', ')}`
                : `${workItem}: nothing held on this machine`,
            );
            count += 1;
            continue;
          }
          const applied = await applyReset(host, plan);
          if (checkoutGone || applied.removedCheckout) {
            out(`${workItem}: removed the workspace checkout — uncommitted work in it is gone`);
          }
          out(
            applied.removed.length > 0
              ? `${workItem}: reset — removed ${applied.removed.join(', ')}`
              : `${workItem}: reset — nothing else was held on this machine`,
          );
          count += 1;
        }
      });
      out(`${dry ? 'would reset' : 'reset'} ${count} work item${count === 1 ? '' : 's'}`);
    });

  sessions
    .command('restart')
    .description('relaunch running sessions on the session environment the config declares now')
    .option(
      '--work-item <ref>',
      "which work item's session to relaunch (repeatable)",
      collect,
      [] as string[],
    )
    .option('--all', 'every running session this machine manages')
    .option('--dry-run', 'report what would be relaunched, and why the rest would not; touch no pane')
    .option('--format <format>', 'text or json', 'text')
    .addOption(registryOption())
    .addOption(portableOption())
    .action(async (options) => {
      const ctx = createContext(program.opts());
      if (options.all && options.workItem.length > 0)
        throw usageError('--all and --work-item are mutually exclusive');
      if (!options.all && options.workItem.length === 0) {
        throw usageError('restart needs --work-item (repeatable) or --all: a bare restart is a usage error');
      }
      if (options.format !== 'text' && options.format !== 'json') {
        throw usageError(`--format must be text or json, not '${options.format}'`);
      }
      let refs: string[];
      try {
        refs = parseRefList(options.workItem);
      } catch (error) {
        if (error instanceof RefError) throw usageError(error.message);
        throw error;
      }
      const declared = declaredEnvironment(ctx.config);
      if (!declared.declared) {
        throw new CliError(
          'refusing to restart: neither env.file nor env.sessionPassthrough is configured — there is no declared environment to roll onto',
          EXIT.failure,
        );
      }
      for (const name of declared.refused) {
        err(`note: ${name} is a credential name: refused in env.sessionPassthrough, kept out instead`);
      }
      const host = hostContext(ctx, options);
      if (options.all) {
        refs = listRecords(hostDirs(host).registryDir)
          .records.filter((r) => r.status !== 'closed')
          .map((r) => r.work_item);
      }
      const dry = options.dryRun === true;
      const forwardedNames = declared.forwarded.map((f) => f.name);
      if (options.format === 'text') {
        out(
          `${dry ? 'would restart' : 'restarting'} ${refs.length} session(s): forwarding ${forwardedNames.length} variable(s) [${forwardedNames.join(', ')}], keeping out ${declared.keptOut.length} [${declared.keptOut.join(', ')}]`,
        );
      }
      const rows: RestartRow[] = [];
      await withClient(ctx, async (client) => {
        for (const workItem of refs) {
          const live = await runningWorkItem(client, workItem);
          let row: RestartRow;
          try {
            row = live
              ? await live.executeUpdate(restartUpdate, { args: [{ dryRun: dry }] })
              : await restartSession(host, workItem, dry);
          } catch (error) {
            throw new CliError(`${workItem}: restart failed: ${updateFailureMessage(error)}`);
          }
          rows.push(row);
          if (options.format === 'text') out(restartLine(row));
        }
      });
      if (options.format === 'json') {
        out(
          JSON.stringify(
            {
              dryRun: dry,
              forwarded: declared.forwarded.map((f) => ({ name: f.name, fingerprint: fingerprint(f.value) })),
              keptOut: declared.keptOut,
              refused: declared.refused,
              sessions: rows,
            },
            null,
            2,
          ),
        );
      }
      const bad = rows.filter((r) => r.outcome === 'mismatch');
      if (bad.length > 0) {
        throw new CliError(
          `${bad.length} session(s) do not hold the declared environment: ${bad
            .map((r) => `${r.workItem} (${r.mismatches.map((m) => m.name).join(', ')})`)
            .join('; ')}`,
          EXIT.failure,
        );
      }
    });

  for (const command of ['start', 'pause', 'resume', 'stop', 'cleanup'] as const) {
    sessions
      .command(command)
      .description(CONTROL_DESCRIPTIONS[command])
      .requiredOption('--work-item <ref>', 'which work item to act on')
      .option('--comment', 'post the equivalent keyword comment on the work item (default)')
      .option('--no-comment', 'do not post the keyword comment')
      .addOption(registryOption())
      .addOption(portableOption())
      .action(async (options) => {
        const ctx = createContext(program.opts());
        const workItem = parseRef(options.workItem);
        const github = githubClient(ctx);
        const host = hostContext(ctx, options, github);
        const request = { command, by: localUser(), via: 'cli' as const, comment: false };
        const report = await withClient(ctx, async (client) => {
          try {
            return await controlWorkItem(
              client,
              queues(ctx, options),
              workItem,
              request,
              ctx.config.harness.default,
            );
          } catch (error) {
            throw new CliError(`${command} ${workItem} failed: ${updateFailureMessage(error)}`, EXIT.failure);
          }
        });
        await describeControl(host, workItem, command, report);
        if (options.comment !== false) await postComment(host, github, workItem, command);
      });
  }
}

const CONTROL_DESCRIPTIONS: Record<WorkItemControlCommand, string> = {
  start: 'spawn the session (checkout, harness trust, tmux) or resume a paused one; prints the tmux target',
  pause: 'hold events; the session keeps its conversation',
  resume: 'deliver events again (the queued ones first, in order)',
  stop: 'take the normal close path, and disarm the work item',
  cleanup: "release the work item's local resources (tmux, checkout, local record); keep its portable record",
};

async function describeControl(
  host: HostContext,
  workItem: string,
  command: WorkItemControlCommand,
  report: ControlReport | null,
): Promise<void> {
  if (report === null) {
    // No session runs: the verbs that need none act locally; the others have nothing to act on.
    if (command === 'cleanup') {
      const result = await cleanupLocal(host, workItem);
      for (const line of result.lines) out(line);
      return;
    }
    if (command === 'stop') {
      await recordControl(host, { workItem, command, by: localUser(), via: 'cli' });
      out(`${workItem} has no running session; recorded stop — it stays disarmed until an explicit start`);
      return;
    }
    throw new CliError(
      `${workItem}: no running session — \`the-loop sessions start\` starts one`,
      EXIT.failure,
    );
  }
  switch (command) {
    case 'start':
      out(
        report.spawned
          ? `started ${workItem} in tmux ${report.target ?? '?'} (socket ${report.socket ?? '?'}): tmux -L ${report.socket ?? '?'} attach -t =${report.target ?? '?'}`
          : `${workItem} is already running in tmux ${report.target ?? '?'} (socket ${report.socket ?? '?'})`,
      );
      break;
    case 'pause':
      out(`paused ${workItem}: events are held until resume (${report.queued} queued)`);
      break;
    case 'resume':
      out(`resumed ${workItem}: ${report.queued} queued event(s) will be delivered in order`);
      break;
    case 'stop':
      for (const line of report.lines) out(line);
      out(`stopped ${workItem}`);
      break;
    case 'cleanup':
      for (const line of report.lines) out(line);
      break;
  }
}

async function postComment(
  host: HostContext,
  github: GitHubClient | null,
  workItem: string,
  command: WorkItemControlCommand,
): Promise<void> {
  const keyword = `the-loop ${command}`;
  if (!github) {
    err(
      `warning: not commented '${keyword}' on ${workItem}: no GitHub token (GH_TOKEN / GITHUB_TOKEN) or App configured`,
    );
    return;
  }
  const at = locate(host, workItem);
  try {
    const posted = await github.postComment(
      { host: at.ref.host, owner: at.ref.owner, repo: at.ref.repo },
      at.ref.number,
      withMarker(keyword),
    );
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'comment.posted', { keyword, url: posted.url });
    out(`commented '${keyword}' on ${workItem}`);
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0] ?? 'error';
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'comment.failed', { keyword, reason });
    err(`warning: could not comment '${keyword}' on ${workItem}: ${reason} (the ${command} itself stands)`);
  }
}

async function discoverPullRequests(
  ctx: CliContext,
  workItem: string,
  options: { branch?: string; headOwner?: string; repository?: string },
  github: GitHubClient | null,
): Promise<string[]> {
  const ref = parseWorkItemRef(workItem);
  let branch = options.branch;
  if (!branch) {
    const head = await currentBranch();
    if (head === null)
      throw usageError('--discover: HEAD is detached (or this is no git checkout): pass --branch');
    branch = head;
  }
  let repo = options.repository ? parseRepository(options.repository) : null;
  if (options.repository && !repo)
    throw usageError(`--repository '${options.repository}' is not [HOST/]OWNER/REPO`);
  if (!repo) {
    const url = (await originUrl()) ?? '';
    const match = /^(?:https?:\/\/|git@|ssh:\/\/git@)([^/:]+)[/:]([^/]+)\/([^/]+?)(?:\.git)?$/.exec(url);
    const trusted = new Set([ref.host, 'github.com']);
    repo =
      match && trusted.has((match[1] ?? '').toLowerCase())
        ? { host: (match[1] ?? '').toLowerCase(), owner: match[2] ?? '', repo: match[3] ?? '' }
        : { host: ref.host, owner: ref.owner, repo: ref.repo };
  }
  const client = github ?? createGitHubClientFromConfig(ctx.config, { log: () => undefined });
  const queries = [{ repo, head: `${repo.owner}:${branch}` }];
  // A fork's branch: its pull request lives upstream, so the work item's repository is asked for it.
  if (options.headOwner)
    queries.push({
      repo: { host: ref.host, owner: ref.owner, repo: ref.repo },
      head: `${options.headOwner}:${branch}`,
    });
  const found = new Set<string>();
  for (const query of queries) {
    for (const pr of await client.listOpenPullRequestsByHead(query.repo, query.head)) {
      found.add(
        formatRef({
          provider: 'github',
          host: query.repo.host,
          owner: query.repo.owner.toLowerCase(),
          repo: query.repo.repo.toLowerCase(),
          number: pr.number,
        }),
      );
    }
  }
  found.delete(workItem);
  return [...found];
}

export { tmuxSessionName };
