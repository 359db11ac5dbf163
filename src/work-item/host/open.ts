import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendWorkItemEvent } from '../event-log';
import { harnessExecutable, resolveExecutable } from '../harness';
import { updatePortable } from '../portable';
import { updateRecord } from '../registry';
import type { RegistryRecord, WorkItemHarness } from '../schemas';
import { createWorkItemSessionDir, sessionDirExists } from '../session-dir';
import { HostError, hostTmux, locate, processEnv, type HostContext } from './context';

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
export async function openSession(ctx: HostContext, input: OpenInput): Promise<OpenResult> {
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
  ensureRegistryIgnored(at.dirs.registryDir);
  const now = new Date().toISOString();
  let lastIteration = 0;
  let replacedPane: string | null = null;
  const openedMs = input.openedMs ?? Date.now();
  const record = await updateRecord(at.dirs, at.slug, (current) => {
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
    // A registration of another conversation (`register --force`) ends the pane of the one it replaces: the next
    // event or start resumes the registered conversation instead of typing into the old one.
    const replacesPane =
      input.registration !== null &&
      current?.tmux != null &&
      (current.harness_session_id !== input.registration.conversationId ||
        current.cwd !== input.registration.cwd);
    if (replacesPane) replacedPane = current?.tmux?.session ?? null;
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
      tmux: replacesPane ? null : (current?.tmux ?? null),
      checkout: current?.checkout ?? null,
      pull_requests: current?.pull_requests ?? [],
      last_control: current?.last_control ?? null,
      closed_at: null,
      closed_reason: null,
      // what the work item has spent outlives its sessions (a budget counts all of it)
      ...(current?.spent ? { spent: current.spent } : {}),
    };
  });
  if (!record) throw new HostError(`${at.workItem}: could not write the session record`, 'failed');
  if (replacedPane !== null) await hostTmux(ctx).killSession(replacedPane);
  await updatePortable(at.dirs, at.slug, at.workItem, (p) => p);
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
      ...(replacedPane !== null ? { ended_pane: replacedPane } : {}),
    },
  );
  return { record, warnings, lastIteration };
}

/** The registry holds this machine's paths and ids: never something to commit, wherever state.root lives. */
function ensureRegistryIgnored(registryDir: string): void {
  const file = join(registryDir, '.gitignore');
  if (existsSync(file)) return;
  mkdirSync(registryDir, { recursive: true });
  writeFileSync(file, '*\n');
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
