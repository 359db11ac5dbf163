import { existsSync } from 'node:fs';
import { declaredEnvironment } from '../env';
import { appendWorkItemEvent } from '../event-log';
import {
  baseCommand,
  conversationArgs,
  conversationFor,
  harnessExecutable,
  newConversation,
  resolveExecutable,
  trustFolderForClaude,
  withKeptOut,
  type Conversation,
} from '../harness';
import { awaitHarnessReady, describeReadiness } from '../harness-ready';
import { updatePortable } from '../portable';
import { tmuxSessionName } from '../ref';
import { updateRecord } from '../registry';
import type { RegistryRecord } from '../schemas';
import { ensureCheckout } from '../workspace';
import { paneLaunch } from './plugin';
import { announcement, openWorkItemThread } from './thread';
import {
  hostDirs,
  HostError,
  hostTmux,
  locate,
  processEnv,
  requireRecord,
  type HostContext,
} from './context';

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
export async function spawnSession(ctx: HostContext, workItem: string): Promise<SpawnResult> {
  const at = locate(ctx, workItem);
  const record = requireRecord(at);
  const tmuxName = tmuxSessionName(at.ref);
  const declared = declaredEnvironment(ctx.config, processEnv(ctx));
  const tmux = hostTmux(ctx, declared);
  const pane = await tmux.pane(tmuxName);
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
  // the channel conversation first (the sessions doc's order), so that the rest of the spawn is mirrored there
  const thread = await openWorkItemThread(ctx, at);
  let cwd: string;
  let conversation: Conversation;
  let checkout = record.checkout;
  let replaced: string | null = null;
  if (record.harness_session_id !== null && record.cwd !== null && existsSync(record.cwd)) {
    // A registered conversation resumes where it was registered: resume is scoped to its directory.
    cwd = record.cwd;
    conversation = await conversationFor(record.harness, record.harness_session_id, cwd, processEnv(ctx));
    if (!conversation.resume) replaced = record.harness_session_id;
  } else {
    checkout = await ensureCheckout(hostDirs(ctx).workspaceRoot, at.ref, ctx.config.workspace.strategy, {
      env: processEnv(ctx),
      ...(ctx.heartbeat ? { onTick: ctx.heartbeat } : {}),
    });
    cwd = checkout.path;
    conversation = newConversation(record.harness);
  }
  if (record.harness === 'claude') await trustFolderForClaude(cwd, processEnv(ctx));
  const base = record.tmux?.command ?? baseCommand(ctx.config, record.harness);
  const launch = await paneLaunch(ctx, at, record.harness, declared.forwarded);
  const created = !(await tmux.hasSession(tmuxName));
  if (created) await tmux.newSession(tmuxName, cwd);
  try {
    await tmux.respawn(
      tmuxName,
      cwd,
      launch.env,
      withKeptOut(declared.keptOut, [
        ...base,
        ...launch.args,
        ...conversationArgs(record.harness, conversation),
      ]),
    );
  } catch (error) {
    // never leave a placeholder pane behind that a retry would mistake for a running harness
    if (created) await tmux.killSession(tmuxName);
    throw error;
  }
  await expectReady(ctx, at, tmux, tmuxName, record.harness);
  const now = new Date().toISOString();
  await updateRecord(at.dirs, at.slug, (current) =>
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
  if (conversation.id !== null) {
    const id = conversation.id;
    await updatePortable(at.dirs, at.slug, at.workItem, (p) => ({
      ...p,
      conversation: { harness: record.harness, id, cwd, at: now },
    }));
  }
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'session.spawned', {
    tmux: tmuxName,
    socket: tmux.socket,
    cwd,
    resumed: conversation.resume,
    harness_session_id: conversation.id,
    ...(replaced !== null ? { replaced_conversation: replaced } : {}),
    forwarded: declared.forwarded.map((f) => f.name),
    kept_out: declared.keptOut,
  });
  if (thread) ctx.mirror?.post(thread, announcement(tmux.socket, tmuxName, conversation.resume));
  return {
    target: tmuxName,
    socket: tmux.socket,
    cwd,
    conversationId: conversation.id,
    resumed: conversation.resume,
    spawned: true,
  };
}

const DEFAULT_READY_TIMEOUT_SECONDS = 90;
const SETTLE_MS = 3000;

/**
 * A pane whose harness dies as it starts ("No conversation found", a bad flag) or never becomes ready (a first-run
 * dialog) is reported, not fed: its tmux session is ended (nothing is left for an event to be typed into) and the
 * spawn fails with the pane's last lines.
 */
async function expectReady(
  ctx: HostContext,
  at: ReturnType<typeof locate>,
  tmux: ReturnType<typeof hostTmux>,
  name: string,
  harness: RegistryRecord['harness'],
): Promise<void> {
  const seconds = ctx.config.harness[harness].readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS;
  const readiness = await awaitHarnessReady(tmux, name, harness, {
    readyTimeoutMs: seconds * 1000,
    settleMs: SETTLE_MS,
    ...(ctx.heartbeat ? { onTick: ctx.heartbeat } : {}),
  });
  if (readiness.ready) return;
  await tmux.killSession(name);
  await updateRecord(at.dirs, at.slug, (current) => (current ? { ...current, tmux: null } : null));
  const message = describeReadiness(harness, readiness, seconds);
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'session.spawn_failed', {
    tmux: name,
    problem: readiness.problem,
    last_lines: readiness.lastLines,
  });
  throw new HostError(`could not start ${at.workItem}: ${message}`, 'spawn-failed');
}
