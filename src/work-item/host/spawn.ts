import { existsSync } from 'node:fs';
import { declaredEnvironment } from '../env';
import { appendWorkItemEvent } from '../event-log';
import {
  baseCommand,
  conversationArgs,
  harnessExecutable,
  newConversation,
  resolveExecutable,
  trustFolderForClaude,
  withKeptOut,
  type Conversation,
} from '../harness';
import { tmuxSessionName } from '../ref';
import { updateRecord } from '../registry';
import { ensureCheckout } from '../workspace';
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
  let cwd: string;
  let conversation: Conversation;
  let checkout = record.checkout;
  if (record.harness_session_id !== null && record.cwd !== null && existsSync(record.cwd)) {
    // A registered conversation resumes where it was registered: resume is scoped to its directory.
    cwd = record.cwd;
    conversation = { id: record.harness_session_id, resume: true };
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
  const created = !(await tmux.hasSession(tmuxName));
  if (created) await tmux.newSession(tmuxName, cwd);
  try {
    await tmux.respawn(
      tmuxName,
      cwd,
      declared.forwarded,
      withKeptOut(declared.keptOut, [...base, ...conversationArgs(record.harness, conversation)]),
    );
  } catch (error) {
    // never leave a placeholder pane behind that a retry would mistake for a running harness
    if (created) await tmux.killSession(tmuxName);
    throw error;
  }
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
