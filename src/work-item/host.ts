import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { TheLoopConfig } from '../config/schema';
import type { GitHubClient } from '../github/api';
import { withMarker } from '../bridge/marker';
import { workItemWorkflowId } from '../workflows/work-item-ids';
import {
  compareEnvironment,
  declaredEnvironment,
  environmentWithout,
  readProcessEnvironment,
  type DeclaredEnvironment,
  type EnvMismatch,
} from './env';
import { appendWorkItemEvent } from './event-log';
import {
  baseCommand,
  conversationArgs,
  harnessExecutable,
  newConversation,
  resolveExecutable,
  trustFolderForClaude,
  withKeptOut,
  type Conversation,
} from './harness';
import { workItemDirs, type WorkItemDirs } from './paths';
import { updatePortable } from './portable';
import { formatRef, parseWorkItemRef, refSlug, tmuxSessionName, type WorkItemRef } from './ref';
import { deleteRecord, readRecord, updateRecord } from './registry';
import type { ControlCommand, RegistryRecord, WorkItemHarness } from './schemas';
import {
  appendSessionEvent,
  createWorkItemSessionDir,
  sessionDirExists,
  writeDeliveryIteration,
} from './session-dir';
import { Tmux } from './tmux';
import { ensureCheckout, removeCheckout } from './workspace';

/** What host-side work-item operations need: injected so the CLI and the activities share one implementation. */
export interface HostContext {
  config: TheLoopConfig;
  stateDir: string;
  /** --registry-dir, when given. */
  registryDir?: string | null;
  /** --portable-dir, when given. */
  portableDir?: string | null;
  /** Where process environments are read from; tests point it elsewhere to prove "unverified". */
  procRoot?: string;
  github?: GitHubClient;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** A failure the caller should not retry: bad input, or a missing harness. */
export class HostError extends Error {
  constructor(
    message: string,
    readonly kind: 'not-found' | 'bad-input' | 'missing-harness' | 'failed',
  ) {
    super(message);
    this.name = 'HostError';
  }
}

export function hostDirs(ctx: HostContext): WorkItemDirs {
  return workItemDirs(ctx.config, ctx.stateDir, {
    registryDir: ctx.registryDir ?? null,
    portableDir: ctx.portableDir ?? null,
  });
}

function processEnv(ctx: HostContext): NodeJS.ProcessEnv {
  return ctx.env ?? process.env;
}

export function hostTmux(ctx: HostContext, declared?: DeclaredEnvironment): Tmux {
  const env = declared ?? declaredEnvironment(ctx.config, processEnv(ctx));
  return new Tmux(ctx.config.routing.tmux.socket, environmentWithout(env.keptOut, processEnv(ctx)));
}

interface Located {
  ref: WorkItemRef;
  workItem: string;
  slug: string;
  dirs: WorkItemDirs;
}

export function locate(ctx: HostContext, workItem: string): Located {
  const ref = parseWorkItemRef(workItem);
  return { ref, workItem: formatRef(ref), slug: refSlug(ref), dirs: hostDirs(ctx) };
}

function requireRecord(at: Located): RegistryRecord {
  const record = readRecord(at.dirs, at.slug);
  if (!record) throw new HostError(`${at.workItem}: no session record on this machine`, 'not-found');
  return record;
}

// ---------------------------------------------------------------------------------------------------------
// register / open

export interface OpenInput {
  workItem: string;
  workflowId: string;
  runId: string;
  taskQueue: string;
  hostQueue: string;
  /** From `sessions register`; null when a start or an event opened the session. */
  registration: { harness: WorkItemHarness; conversationId: string; cwd: string } | null;
  /** When this open was asked for (the activity's scheduled time), to order racing `--force` registrations. */
  openedMs?: number;
}

export interface OpenResult {
  record: RegistryRecord;
  /** Warnings for the person registering (a missing harness binary only warns). */
  warnings: string[];
  /** The last iteration number already in the session directory. */
  lastIteration: number;
}

/** Writes the registry record (atomically, under its lock), the portable record and the event log line. */
export function openSession(ctx: HostContext, input: OpenInput): OpenResult {
  const at = locate(ctx, input.workItem);
  const warnings: string[] = [];
  const harness =
    input.registration?.harness ?? (ctx.config.harness.default === 'cursor' ? 'cursor' : 'claude');
  const executable = harnessExecutable(ctx.config, harness);
  if (resolveExecutable(executable, processEnv(ctx)) === null) {
    warnings.push(
      `the ${harness} harness ('${executable}') is not on PATH: events cannot be dispatched to this session until it is installed`,
    );
  }
  const now = new Date().toISOString();
  let lastIteration = 0;
  const openedMs = input.openedMs ?? Date.now();
  const record = updateRecord(at.dirs, at.slug, (current) => {
    // A run that `--force` already replaced may still be finishing this activity: it must not win.
    if (
      current !== null &&
      current.workflow_id === input.workflowId &&
      current.run_id !== input.runId &&
      current.status !== 'closed' &&
      (current.opened_ms ?? 0) > openedMs
    ) {
      return null;
    }
    const sessionDir =
      current && sessionDirExists(current.session_dir)
        ? current.session_dir
        : createWorkItemSessionDir({
            sessionsDir: at.dirs.sessionsDir,
            workItem: at.workItem,
            workflowId: input.workflowId,
            taskQueue: input.taskQueue,
            hostQueue: input.hostQueue,
            harness,
            cwd: input.registration?.cwd ?? null,
          });
    lastIteration = countIterations(sessionDir);
    const keepConversation = input.registration === null && current !== null && current.status !== 'closed';
    return {
      schema_version: 1,
      work_item: at.workItem,
      slug: at.slug,
      status: 'active',
      harness,
      harness_session_id:
        input.registration?.conversationId ?? (keepConversation ? current.harness_session_id : null),
      cwd: input.registration?.cwd ?? (keepConversation ? current.cwd : null),
      registered_at: now,
      updated_at: now,
      workflow_id: input.workflowId,
      run_id: input.runId,
      opened_ms: openedMs,
      host_queue: input.hostQueue,
      session_dir: sessionDir,
      // A re-registration keeps what outlives one conversation: the tmux session, the checkout, the PR links.
      tmux: current?.tmux ?? null,
      checkout: current?.checkout ?? null,
      pull_requests: current?.pull_requests ?? [],
      last_control: current?.last_control ?? null,
      closed_at: null,
      closed_reason: null,
    };
  });
  if (!record) throw new HostError(`${at.workItem}: could not write the session record`, 'failed');
  updatePortable(at.dirs, at.slug, at.workItem, (p) => p);
  appendWorkItemEvent(
    at.dirs,
    at.slug,
    at.workItem,
    input.registration ? 'session.registered' : 'session.opened',
    {
      workflow_id: input.workflowId,
      run_id: input.runId,
      harness,
      harness_session_id: record.harness_session_id,
      cwd: record.cwd,
    },
  );
  return { record, warnings, lastIteration };
}

function countIterations(sessionDir: string): number {
  const dir = join(sessionDir, 'iterations');
  if (!existsSync(dir)) return 0;
  let max = 0;
  for (const name of readdirSync(dir)) {
    const n = Number(/^(\d+)_/.exec(name)?.[1] ?? 0);
    if (n > max) max = n;
  }
  return max;
}

// ---------------------------------------------------------------------------------------------------------
// spawn

export interface SpawnResult {
  target: string;
  socket: string;
  cwd: string;
  conversationId: string | null;
  resumed: boolean;
  /** false: the harness was already running in a live pane, nothing was spawned. */
  spawned: boolean;
}

/**
 * The dispatcher: workspace checkout (unless a registered conversation has its own directory), harness trust,
 * tmux hosting on the private socket. A live pane is left alone; a dead one is respawned in place.
 */
export function spawnSession(ctx: HostContext, workItem: string): SpawnResult {
  const at = locate(ctx, workItem);
  const record = requireRecord(at);
  const tmuxName = tmuxSessionName(at.ref);
  const declared = declaredEnvironment(ctx.config, processEnv(ctx));
  const tmux = hostTmux(ctx, declared);
  const pane = tmux.pane(tmuxName);
  if (pane && !pane.dead && record.tmux && record.cwd) {
    return {
      target: tmuxName,
      socket: tmux.socket,
      cwd: record.cwd,
      conversationId: record.harness_session_id,
      resumed: false,
      spawned: false,
    };
  }
  const executable = harnessExecutable(ctx.config, record.harness);
  if (resolveExecutable(executable, processEnv(ctx)) === null) {
    throw new HostError(
      `cannot start ${at.workItem}: the ${record.harness} harness ('${executable}') is not on PATH — install it or set harness.${record.harness}.command in the-loop.yaml`,
      'missing-harness',
    );
  }
  let cwd: string;
  let conversation: Conversation;
  let checkout = record.checkout;
  if (record.harness_session_id !== null && record.cwd !== null && existsSync(record.cwd)) {
    // A registered conversation resumes where it was registered: resume is scoped to its directory.
    cwd = record.cwd;
    conversation = { id: record.harness_session_id, resume: true };
  } else {
    checkout = ensureCheckout(
      hostDirs(ctx).workspaceRoot,
      at.ref,
      ctx.config.workspace.strategy,
      processEnv(ctx),
    );
    cwd = checkout.path;
    conversation = newConversation(record.harness);
  }
  if (record.harness === 'claude') trustFolderForClaude(cwd, processEnv(ctx));
  const base = record.tmux?.command ?? baseCommand(ctx.config, record.harness);
  const created = !tmux.hasSession(tmuxName);
  if (created) tmux.newSession(tmuxName, cwd);
  try {
    tmux.respawn(
      tmuxName,
      cwd,
      declared.forwarded,
      withKeptOut(declared.keptOut, [...base, ...conversationArgs(record.harness, conversation)]),
    );
  } catch (error) {
    // never leave a placeholder pane behind that a retry would mistake for a running harness
    if (created) tmux.killSession(tmuxName);
    throw error;
  }
  const now = new Date().toISOString();
  updateRecord(at.dirs, at.slug, (current) =>
    current
      ? {
          ...current,
          status: current.status === 'closed' ? 'active' : current.status,
          cwd,
          harness_session_id: conversation.id,
          checkout,
          tmux: { socket: tmux.socket, session: tmuxName, created_at: now, command: base },
        }
      : null,
  );
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'session.spawned', {
    tmux: tmuxName,
    socket: tmux.socket,
    cwd,
    resumed: conversation.resume,
    harness_session_id: conversation.id,
    forwarded: declared.forwarded.map((f) => f.name),
    kept_out: declared.keptOut,
  });
  return {
    target: tmuxName,
    socket: tmux.socket,
    cwd,
    conversationId: conversation.id,
    resumed: conversation.resume,
    spawned: true,
  };
}

// ---------------------------------------------------------------------------------------------------------
// deliver

export interface DeliverInput {
  workItem: string;
  eventId: string;
  text: string;
  iteration: number;
}

export type DeliverResult =
  | { outcome: 'delivered'; target: string; iterationDir: string; spawned: boolean }
  | { outcome: 'tmux-lost'; reason: string };

/** Pastes one event into the pane (spawning the session on its first event) and records the iteration. */
export function deliverEvent(ctx: HostContext, input: DeliverInput): DeliverResult {
  const at = locate(ctx, input.workItem);
  const record = requireRecord(at);
  const tmux = hostTmux(ctx);
  const name = tmuxSessionName(at.ref);
  let spawned = false;
  if (record.tmux === null) {
    spawnSession(ctx, at.workItem);
    spawned = true;
  } else {
    const pane = tmux.pane(name);
    if (!pane || pane.dead) {
      const reason = !tmux.serverRunning()
        ? `the tmux server on socket '${tmux.socket}' is not running`
        : !pane
          ? `tmux session ${name} is gone`
          : `the harness in ${name} has exited`;
      appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'tmux.lost', {
        reason,
        event_id: input.eventId,
        fix: '`the-loop sessions start` brings the session back',
      });
      return { outcome: 'tmux-lost', reason };
    }
  }
  const sessionId = basename(record.session_dir);
  appendSessionEvent(
    record.session_dir,
    sessionId,
    input.iteration * 2 - 1,
    'iteration_started',
    input.iteration,
  );
  let error: string | null = null;
  try {
    tmux.paste(name, input.text, `the-loop-${at.slug}`);
  } catch (err) {
    error = (err as Error).message;
  }
  const iterationDir = writeDeliveryIteration(record.session_dir, input.iteration, input.text, {
    success: error === null,
    error,
  });
  appendSessionEvent(
    record.session_dir,
    sessionId,
    input.iteration * 2,
    'iteration_finished',
    input.iteration,
    {
      success: error === null,
    },
  );
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, error === null ? 'event.delivered' : 'event.failed', {
    event_id: input.eventId,
    iteration: input.iteration,
    ...(error ? { error } : {}),
  });
  if (error !== null) throw new HostError(`${at.workItem}: delivery failed: ${error}`, 'failed');
  return { outcome: 'delivered', target: name, iterationDir, spawned };
}

// ---------------------------------------------------------------------------------------------------------
// close

export interface CloseInput {
  workItem: string;
  /** null: routing.tmux.keepSessionOnClose. */
  keepTmux: boolean | null;
  reason: string;
  /** Remove the checkout regardless of workspace.keepCheckoutOnClose (cleanup). */
  forceRemoveCheckout?: boolean;
}

export interface CloseResult {
  workItem: string;
  lines: string[];
  endedLiveSession: boolean;
  removedCheckout: string | null;
  tmuxKept: boolean;
}

async function endPaneProcess(tmux: Tmux, name: string): Promise<boolean> {
  const pane = tmux.pane(name);
  if (!pane || pane.dead) return false;
  for (const signal of ['SIGHUP', 'SIGTERM'] as const) {
    try {
      process.kill(-pane.pid, signal);
    } catch {
      try {
        process.kill(pane.pid, signal);
      } catch {
        // already gone
      }
    }
  }
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const now = tmux.pane(name);
    if (!now || now.dead) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    process.kill(-pane.pid, 'SIGKILL');
  } catch {
    // gone
  }
  return true;
}

/** The normal close path: harness ended, tmux kept or killed per the settings, checkout per its setting. */
export async function closeSession(ctx: HostContext, input: CloseInput): Promise<CloseResult> {
  const at = locate(ctx, input.workItem);
  const record = readRecord(at.dirs, at.slug);
  const keepTmux = input.keepTmux ?? ctx.config.routing.tmux.keepSessionOnClose;
  const tmux = hostTmux(ctx);
  const name = tmuxSessionName(at.ref);
  const lines: string[] = [];
  let endedLiveSession = false;
  let tmuxKept = false;
  if (tmux.hasSession(name)) {
    const pane = tmux.pane(name);
    endedLiveSession = Boolean(pane && !pane.dead);
    if (keepTmux) {
      tmuxKept = true;
      if (ctx.config.routing.tmux.killHarnessOnClose) {
        const ended = await endPaneProcess(tmux, name);
        lines.push(
          ended
            ? `ended the harness in tmux session ${name}; the session is kept read-only (the-loop sessions attach)`
            : `kept tmux session ${name} (its harness had already exited)`,
        );
      } else
        lines.push(`kept tmux session ${name} with its harness running (routing.tmux.killHarnessOnClose)`);
    } else {
      await endPaneProcess(tmux, name);
      tmux.killSession(name);
      lines.push(`killed tmux session ${name}`);
    }
  }
  let removedCheckout: string | null = null;
  if (input.forceRemoveCheckout || !ctx.config.workspace.keepCheckoutOnClose) {
    removedCheckout = removeCheckout(hostDirs(ctx).workspaceRoot, at.ref, record?.checkout ?? null);
    if (removedCheckout)
      lines.push(`removed the workspace checkout ${removedCheckout} — uncommitted work in it is gone`);
  }
  const now = new Date().toISOString();
  updateRecord(at.dirs, at.slug, (current) =>
    current
      ? {
          ...current,
          status: 'closed',
          closed_at: now,
          closed_reason: input.reason,
          tmux: tmuxKept ? current.tmux : null,
          checkout: removedCheckout ? null : current.checkout,
        }
      : null,
  );
  if (record) {
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'session.closed', {
      reason: input.reason,
      tmux_kept: tmuxKept,
      removed_checkout: removedCheckout,
    });
  }
  return { workItem: at.workItem, lines, endedLiveSession, removedCheckout, tmuxKept };
}

// ---------------------------------------------------------------------------------------------------------
// control: the portable record's control section, the registry's last command, the keyword comment

export interface RecordControlInput {
  workItem: string;
  command: ControlCommand;
  by: string;
  via: 'cli' | 'comment' | 'closure';
}

export function recordControl(ctx: HostContext, input: RecordControlInput): void {
  const at = locate(ctx, input.workItem);
  const entry = { command: input.command, at: new Date().toISOString(), by: input.by, via: input.via };
  const armed = input.command === 'start' || input.command === 'resume' || input.command === 'pause';
  updatePortable(at.dirs, at.slug, at.workItem, (p) => ({
    ...p,
    control: { armed, last: entry, history: [...(p.control?.history ?? []), entry].slice(-50) },
    ...(input.command === 'cleanup' ? { graph: { ...(p.graph ?? {}), node: 'cleanup', at: entry.at } } : {}),
  }));
  updateRecord(at.dirs, at.slug, (current) =>
    current
      ? {
          ...current,
          last_control: { command: input.command, at: entry.at },
          status:
            input.command === 'pause'
              ? 'paused'
              : input.command === 'resume' || input.command === 'start'
                ? 'active'
                : current.status,
        }
      : null,
  );
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'control.recorded', { ...entry });
}

export interface CommentResult {
  posted: boolean;
  /** A warning for stderr: a missing client or a failing post never undoes the local action. */
  warning: string | null;
  url: string | null;
}

/** Posts the keyword comment with the loop-prevention marker; best effort. */
export async function postKeywordComment(
  ctx: HostContext,
  workItem: string,
  command: ControlCommand,
): Promise<CommentResult> {
  const at = locate(ctx, workItem);
  const keyword = `the-loop ${command}`;
  if (!ctx.github) {
    return {
      posted: false,
      warning: `not commented '${keyword}' on ${at.workItem}: no GitHub client is configured (no token)`,
      url: null,
    };
  }
  try {
    const posted = await ctx.github.postComment(
      { host: at.ref.host, owner: at.ref.owner, repo: at.ref.repo },
      at.ref.number,
      withMarker(keyword),
    );
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'comment.posted', { keyword, url: posted.url });
    return { posted: true, warning: null, url: posted.url };
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0] ?? 'error';
    appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'comment.failed', { keyword, reason });
    return {
      posted: false,
      warning: `could not comment '${keyword}' on ${at.workItem}: ${reason}`,
      url: null,
    };
  }
}

// ---------------------------------------------------------------------------------------------------------
// link-pr

export interface LinkResult {
  workItem: string;
  pullRequest: string;
  alreadyRecorded: boolean;
  /** A note for stderr when GitHub refused the labels; the link stands anyway. */
  note: string | null;
}

export async function linkPullRequest(
  ctx: HostContext,
  workItem: string,
  pullRequest: string,
): Promise<LinkResult> {
  const at = locate(ctx, workItem);
  const pr = parseWorkItemRef(pullRequest);
  const prRef = formatRef(pr);
  if (prRef === at.workItem) throw new HostError(`${at.workItem} cannot be linked to itself`, 'bad-input');
  let already = false;
  const updated = updateRecord(at.dirs, at.slug, (current) => {
    if (!current) return null;
    if (current.pull_requests.includes(prRef)) {
      already = true;
      return null;
    }
    return { ...current, pull_requests: [...current.pull_requests, prRef] };
  });
  if (!updated) throw new HostError(`${at.workItem}: no session record on this machine`, 'not-found');
  if (already) return { workItem: at.workItem, pullRequest: prRef, alreadyRecorded: true, note: null };
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'pr.linked', { pull_request: prRef });
  let note: string | null = null;
  const labels = ctx.config.routing.autoExecuteLabels;
  if (labels.length > 0) {
    if (!ctx.github) {
      note = `no GitHub client is configured: add the label(s) ${labels.join(', ')} to ${prRef} by hand`;
    } else {
      try {
        await ctx.github.addLabels({ host: pr.host, owner: pr.owner, repo: pr.repo }, pr.number, labels);
      } catch (err) {
        note = `GitHub refused the label(s) ${labels.join(', ')} on ${prRef} (${(err as Error).message.split('\n')[0]}): add them by hand`;
      }
    }
  }
  return { workItem: at.workItem, pullRequest: prRef, alreadyRecorded: false, note };
}

// ---------------------------------------------------------------------------------------------------------
// restart

export type RestartOutcome = 'restarted' | 'would-restart' | 'skipped' | 'mismatch' | 'unverified';

export interface RestartRow {
  workItem: string;
  outcome: RestartOutcome;
  reason: string | null;
  target: string | null;
  pid: number | null;
  mismatches: EnvMismatch[];
}

/**
 * Waits until the pane's process has exec'd past `env` (and any launcher script) into the harness, so that its
 * own environment is what gets read: the command line must stay the same for a short while.
 */
async function settledPanePid(tmux: Tmux, name: string, procRoot: string): Promise<number | null> {
  const deadline = Date.now() + 5000;
  let pid: number | null = null;
  let previous: string | null = null;
  while (Date.now() < deadline) {
    const pane = tmux.pane(name);
    if (!pane || pane.dead) return null;
    pid = pane.pid;
    let cmdline: string;
    try {
      cmdline = readFileSync(join(procRoot, String(pid), 'cmdline'), 'utf8');
    } catch {
      return pid;
    }
    const argv0 = basename(cmdline.split('\0')[0] ?? '');
    if (argv0 !== 'env' && cmdline === previous) return pid;
    previous = cmdline;
    await new Promise((r) => setTimeout(r, 150));
  }
  return pid;
}

export function sessionIsRunning(ctx: HostContext, record: RegistryRecord): boolean {
  if (record.status === 'closed' || record.tmux === null) return false;
  const pane = hostTmux(ctx).pane(record.tmux.session);
  return Boolean(pane && !pane.dead);
}

/** respawn-pane -k in place, resuming the recorded conversation in the recorded cwd; then proves the env. */
export async function restartSession(
  ctx: HostContext,
  workItem: string,
  dryRun: boolean,
): Promise<RestartRow> {
  const at = locate(ctx, workItem);
  const record = readRecord(at.dirs, at.slug);
  const row = (
    outcome: RestartOutcome,
    reason: string | null,
    extra: Partial<RestartRow> = {},
  ): RestartRow => ({
    workItem: at.workItem,
    outcome,
    reason,
    target: record?.tmux?.session ?? null,
    pid: null,
    mismatches: [],
    ...extra,
  });
  if (!record || !sessionIsRunning(ctx, record) || record.tmux === null) {
    return row('skipped', 'not running — `the-loop sessions start` brings a stopped session up');
  }
  if (record.harness_session_id === null || record.cwd === null || !existsSync(record.cwd)) {
    return row(
      'skipped',
      record.harness_session_id === null
        ? 'no resumable conversation is recorded — the pane is left running'
        : `its recorded directory ${record.cwd ?? '(none)'} is gone — the pane is left running`,
    );
  }
  if (dryRun) return row('would-restart', null);
  const declared = declaredEnvironment(ctx.config, processEnv(ctx));
  const tmux = hostTmux(ctx, declared);
  const name = record.tmux.session;
  tmux.respawn(
    name,
    record.cwd,
    declared.forwarded,
    withKeptOut(declared.keptOut, [
      ...record.tmux.command,
      ...conversationArgs(record.harness, { id: record.harness_session_id, resume: true }),
    ]),
  );
  tmux.clearHistory(name);
  const procRoot = ctx.procRoot ?? '/proc';
  const pid = await settledPanePid(tmux, name, procRoot);
  const actual = pid === null ? null : readProcessEnvironment(pid, procRoot);
  const mismatches = actual ? compareEnvironment(actual, declared) : [];
  const outcome: RestartOutcome =
    actual === null ? 'unverified' : mismatches.length > 0 ? 'mismatch' : 'restarted';
  updateRecord(at.dirs, at.slug, (current) =>
    current && current.tmux
      ? { ...current, tmux: { ...current.tmux, created_at: new Date().toISOString() } }
      : null,
  );
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'session.restarted', {
    outcome,
    pid,
    forwarded: declared.forwarded.map((f) => f.name),
    kept_out: declared.keptOut,
    mismatches: mismatches.map((m) => ({ name: m.name, problem: m.problem })),
  });
  return row(outcome, actual === null ? 'this host will not report the process environment' : null, {
    pid,
    mismatches,
  });
}

// ---------------------------------------------------------------------------------------------------------
// stale-environment detection (the-loop status)

export interface EnvironmentDrift {
  running: number;
  stale: string[];
}

export function environmentDrift(ctx: HostContext, records: RegistryRecord[]): EnvironmentDrift {
  const declared = declaredEnvironment(ctx.config, processEnv(ctx));
  const tmux = hostTmux(ctx, declared);
  let running = 0;
  const stale: string[] = [];
  for (const record of records) {
    if (record.status === 'closed' || record.tmux === null) continue;
    const pane = tmux.pane(record.tmux.session);
    if (!pane || pane.dead) continue;
    running += 1;
    const actual = readProcessEnvironment(pane.pid, ctx.procRoot ?? '/proc');
    if (actual && compareEnvironment(actual, declared).length > 0) stale.push(record.work_item);
  }
  return { running, stale };
}

// ---------------------------------------------------------------------------------------------------------
// cleanup

export interface CleanupResult {
  workItem: string;
  lines: string[];
  nothingToDo: boolean;
}

/** Releases every local resource, ignoring the retention settings; keeps the portable record. */
export async function cleanupLocal(ctx: HostContext, workItem: string): Promise<CleanupResult> {
  const at = locate(ctx, workItem);
  const record = readRecord(at.dirs, at.slug);
  const tmux = hostTmux(ctx);
  const endpoints = [at.workItem, ...(record?.pull_requests ?? [])];
  const ended: string[] = [];
  for (const endpoint of endpoints) {
    const name = tmuxSessionName(parseWorkItemRef(endpoint));
    if (!tmux.hasSession(name)) continue;
    await endPaneProcess(tmux, name);
    tmux.killSession(name);
    ended.push(endpoint);
  }
  const lines: string[] = [];
  if (ended.length > 0) {
    const list = [...ended].reverse().join(', ');
    lines.push(
      ended.length === 1
        ? `ended ${list} — its tmux session and transcript are gone`
        : `ended ${list} — their tmux sessions and transcripts are gone`,
    );
  }
  const root = hostDirs(ctx).workspaceRoot;
  const removed = removeCheckout(root, at.ref, record?.checkout ?? null);
  if (removed) lines.push(`removed the workspace checkout under ${root} — uncommitted work in it is gone`);
  const deleted = deleteRecord(at.dirs, at.slug);
  if (deleted) lines.push('removed the machine-local session record');
  recordControlPortableOnly(at, 'cleanup');
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'session.cleanup', {
    ended,
    removed_checkout: removed,
    removed_record: deleted,
  });
  const nothingToDo = ended.length === 0 && removed === null && !deleted;
  lines.push(
    nothingToDo
      ? `nothing to clean up for ${at.workItem} — its portable record is kept, and nothing remote was touched`
      : `cleaned up ${at.workItem} — its portable record (control, poll, graph) is kept, and nothing remote was touched`,
  );
  return { workItem: at.workItem, lines, nothingToDo };
}

/** Cleanup disarms durably and moves the graph to `cleanup`, with or without a registry record. */
function recordControlPortableOnly(at: Located, command: ControlCommand): void {
  const now = new Date().toISOString();
  updatePortable(at.dirs, at.slug, at.workItem, (p) => {
    const last = p.control?.last;
    const recordedJustNow = last?.command === command && Date.now() - Date.parse(last.at) < 60_000;
    const entry = { command, at: now, by: last?.by ?? 'the-loop', via: 'cli' as const };
    return {
      ...p,
      control: {
        armed: false,
        last: recordedJustNow && last ? last : entry,
        history: recordedJustNow ? (p.control?.history ?? []) : [...(p.control?.history ?? []), entry],
      },
      graph: { ...(p.graph ?? {}), node: 'cleanup', at: now },
    };
  });
}

export { workItemWorkflowId };
