import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, EXIT } from '../errors';
import { readJsonIfExists } from '../session/json-file';
import { resultFileSchema } from '../session/schemas';
import { resolveTarget } from '../temporal/target';
import { webUiAddress, workflowUiLink } from '../temporal/web-ui';
import { hostDirs, locate } from '../work-item/host';
import { readPortable } from '../work-item/portable';
import { readRecord } from '../work-item/registry';
import type { RegistryRecord, Waiting } from '../work-item/schemas';
import { openWait, shownStatus } from '../work-item/waiting-view';
import { canonicalWorkItem, hostContext, type SessionsContext } from './context';

/** Everything about one work-item session that a person deciding what to do about it needs, from files alone. */
export interface SessionView {
  work_item: string;
  /** `waiting: permission`, or the record's status. */
  status: string;
  waiting: Waiting | null;
  node: string | null;
  harness: string;
  conversation: string | null;
  pull_requests: string[];
  branch: string | null;
  cwd: string | null;
  session_dir: string;
  last_turn: { iteration: number; success: boolean; reply: string; error: string | null } | null;
  attach: string | null;
  web_ui: string | null;
  record: RegistryRecord;
}

/** The newest turn that left its result (iterations/NNNN_event/result.json), or null before the first one ends. */
export function lastTurn(sessionDir: string): SessionView['last_turn'] {
  let names: string[];
  try {
    names = readdirSync(join(sessionDir, 'iterations')).sort().reverse();
  } catch {
    return null;
  }
  for (const name of names) {
    const iteration = Number.parseInt(name, 10);
    if (!Number.isInteger(iteration)) continue;
    try {
      const result = readJsonIfExists(join(sessionDir, 'iterations', name, 'result.json'), resultFileSchema);
      if (result) return { iteration, success: result.success, reply: result.text, error: result.error };
    } catch {
      // a torn result: an older turn tells more than none
    }
  }
  return null;
}

export async function showSession(ctx: SessionsContext, workItemText: string): Promise<SessionView> {
  const workItem = canonicalWorkItem(workItemText);
  const host = hostContext(ctx);
  const dirs = await hostDirs(host);
  const { slug } = await locate(host, workItem);
  const record = readRecord(dirs, slug);
  if (!record) throw new CliError(`${workItem}: no session record on this machine`, EXIT.failure);
  let node: string | null = null;
  try {
    node = readPortable(dirs, slug)?.graph?.node ?? null;
  } catch {
    // an unreadable portable record shows no node
  }
  const target = resolveTarget(ctx.config, ctx.stateDir);
  return {
    work_item: record.work_item,
    status: shownStatus(record),
    waiting: openWait(record),
    node,
    harness: record.harness,
    conversation: record.harness_session_id,
    pull_requests: record.pull_requests,
    branch: record.checkout?.branch ?? null,
    cwd: record.cwd,
    session_dir: record.session_dir,
    last_turn: lastTurn(record.session_dir),
    attach:
      record.tmux && record.status !== 'closed'
        ? `the-loop sessions attach --work-item ${record.work_item}`
        : null,
    web_ui: workflowUiLink(webUiAddress(ctx.config, target), target.namespace, record.workflow_id),
    record,
  };
}
