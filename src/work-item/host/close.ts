import { terminate } from '../../process/terminate';
import { appendWorkItemEvent } from '../event-log';
import { tmuxSessionName } from '../ref';
import { readRecord, updateRecord } from '../registry';
import type { Tmux } from '../tmux';
import { removeCheckout } from '../workspace';
import { hostDirs, hostTmux, locate, type HostContext } from './context';

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

/**
 * Ends the harness in a pane, as closing its terminal would (SIGHUP and SIGTERM to its process group, SIGKILL
 * after 5 s); the pane stays, marked dead. false: nothing was running there.
 */
export async function endPaneProcess(tmux: Tmux, name: string): Promise<boolean> {
  const pane = await tmux.pane(name);
  if (!pane || pane.dead) return false;
  await terminate(
    { group: pane.pid },
    {
      graceMs: 5000,
      intervalMs: 50,
      politeSignals: ['SIGHUP', 'SIGTERM'],
      isRunning: async () => {
        const now = await tmux.pane(name);
        return Boolean(now && !now.dead);
      },
    },
  );
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
  if (await tmux.hasSession(name)) {
    const pane = await tmux.pane(name);
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
      await tmux.killSession(name);
      lines.push(`killed tmux session ${name}`);
    }
  }
  // a closed session takes no turns: its hooks are refused from now on
  if (record?.harness === 'claude') await ctx.turns?.closePane(at.workItem);
  let removedCheckout: string | null = null;
  if (input.forceRemoveCheckout || !ctx.config.workspace.keepCheckoutOnClose) {
    removedCheckout = await removeCheckout(hostDirs(ctx).workspaceRoot, at.ref, record?.checkout ?? null);
    if (removedCheckout)
      lines.push(`removed the workspace checkout ${removedCheckout} — uncommitted work in it is gone`);
  }
  const now = new Date().toISOString();
  await updateRecord(at.dirs, at.slug, (current) =>
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
