import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pollUntil } from '../../process/poll-until';
import { compareEnvironment, declaredEnvironment, readProcessEnvironment, type EnvMismatch } from '../env';
import { appendWorkItemEvent } from '../event-log';
import { conversationArgs, withKeptOut } from '../harness';
import { readRecord, updateRecord } from '../registry';
import type { RegistryRecord } from '../schemas';
import type { Tmux } from '../tmux';
import { restartUpdate } from '../../workflows/work-item/messages';
import { hostTmux, locate, processEnv, type HostContext } from './context';
import { hostVerb } from './host-verb';
import { paneLaunch } from './plugin';

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
  let last: number | null = null;
  let previous: string | null = null;
  const settled = await pollUntil(
    async () => {
      const pane = await tmux.pane(name);
      if (!pane || pane.dead) return { pid: null };
      last = pane.pid;
      let cmdline: string;
      try {
        cmdline = readFileSync(join(procRoot, String(pane.pid), 'cmdline'), 'utf8');
      } catch {
        return { pid: pane.pid };
      }
      const argv0 = basename(cmdline.split('\0')[0] ?? '');
      if (argv0 !== 'env' && cmdline === previous) return { pid: pane.pid };
      previous = cmdline;
      return undefined;
    },
    { timeoutMs: 5000, intervalMs: 150 },
  );
  return settled ? settled.pid : last;
}

export async function sessionIsRunning(ctx: HostContext, record: RegistryRecord): Promise<boolean> {
  if (record.status === 'closed' || record.tmux === null) return false;
  const pane = await hostTmux(ctx).pane(record.tmux.session);
  return Boolean(pane && !pane.dead);
}

/** respawn-pane -k in place, resuming the recorded conversation in the recorded cwd; then proves the env. */
async function restartSession(ctx: HostContext, workItem: string, dryRun: boolean): Promise<RestartRow> {
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
  if (!record || !(await sessionIsRunning(ctx, record)) || record.tmux === null) {
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
  const launch = await paneLaunch(ctx, at, record.harness, declared.forwarded);
  await tmux.respawn(
    name,
    record.cwd,
    launch.env,
    withKeptOut(declared.keptOut, [
      ...record.tmux.command,
      ...launch.args,
      ...conversationArgs(record.harness, { id: record.harness_session_id, resume: true }),
    ]),
  );
  await tmux.clearHistory(name);
  const procRoot = ctx.procRoot ?? '/proc';
  const pid = await settledPanePid(tmux, name, procRoot);
  const actual = pid === null ? null : readProcessEnvironment(pid, procRoot);
  const mismatches = actual ? compareEnvironment(actual, declared) : [];
  const outcome: RestartOutcome =
    actual === null ? 'unverified' : mismatches.length > 0 ? 'mismatch' : 'restarted';
  await updateRecord(at.dirs, at.slug, (current) =>
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

/** `sessions restart`: relaunches the pane in place on the environment the config declares now. */
export const restart = hostVerb(restartUpdate, (ctx, workItem, { dryRun }) =>
  restartSession(ctx, workItem, dryRun),
);
