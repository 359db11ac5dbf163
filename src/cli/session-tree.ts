import * as fs from 'node:fs';
import * as path from 'node:path';
import { readJsonIfExists } from '../session/json-file';
import { sessionPaths } from '../session/paths';
import {
  childrenFileSchema,
  sessionStateFileSchema,
  type ChildStatus,
  type SessionStateFile,
  type SessionStatus,
  type StopKind,
} from '../session/schemas';
import { describeStop } from '../workflows/children/plan';
import { formatUsd } from '../pricing/money';

/** One session of a tree, as `loopy status <session>` shows it. */
export interface SessionTreeNode {
  /** Null for a rejected request (no session was started). */
  sessionId: string | null;
  sessionDir: string | null;
  /** First line of goal.md. */
  goal: string | null;
  /** The session's own state.json status; null when it has none (rejected, or not started yet). */
  status: SessionStatus | null;
  stop: { kind: StopKind | null; reason: string | null } | null;
  iterations: number;
  /** Dollars: own turns, the children's whole subtrees, and their sum. */
  cost: { own: number; children: number; total: number } | null;
  activeChildSessionId: string | null;
  /** The parent's children.json record of this node; null for the root. */
  child: {
    requestFile: string;
    status: ChildStatus;
    reason: string | null;
    outcome: string | null;
    maxCostUsd: number | null;
  } | null;
  children: SessionTreeNode[];
  /** What could not be read (a torn or missing file); the rest of the node is best effort. */
  problem: string | null;
}

export interface LoadSessionTreeOptions {
  /** Live states (e.g. from the workflows' `status` query) by session id; they win over state.json. */
  liveStates?: ReadonlyMap<string, SessionStateFile>;
  /** Guard against a runaway tree; deeper children are listed without their own children. */
  maxDepth?: number;
}

function firstLine(file: string): string | null {
  try {
    return (
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .find((l) => l.trim())
        ?.trim() ?? null
    );
  } catch {
    return null;
  }
}

function readState(dir: string): { state: SessionStateFile | null; problem: string | null } {
  try {
    return { state: readJsonIfExists(sessionPaths(dir).state, sessionStateFileSchema), problem: null };
  } catch (error) {
    return { state: null, problem: (error as Error).message };
  }
}

function applyState(node: SessionTreeNode, state: SessionStateFile): void {
  node.status = state.status;
  node.stop =
    state.stop.kind || state.stop.reason ? { kind: state.stop.kind, reason: state.stop.reason } : null;
  node.iterations = state.iteration;
  node.cost = {
    own: state.usage.own.cost_usd,
    children: state.usage.children.cost_usd,
    total: state.usage.total.cost_usd,
  };
  node.activeChildSessionId = state.active_child_session_id;
}

/**
 * Reads a session and, recursively, its children from disk: state.json for each node, the parent's
 * children.json for each child's record, children/<child_session_id>/ for the child's own directory.
 */
export function loadSessionTree(sessionDir: string, options: LoadSessionTreeOptions = {}): SessionTreeNode {
  const maxDepth = options.maxDepth ?? 32;
  const load = (dir: string, depth: number): SessionTreeNode => {
    const paths = sessionPaths(dir);
    const node: SessionTreeNode = {
      sessionId: path.basename(paths.dir),
      sessionDir: paths.dir,
      goal: firstLine(paths.goal),
      status: null,
      stop: null,
      iterations: 0,
      cost: null,
      activeChildSessionId: null,
      child: null,
      children: [],
      problem: null,
    };
    const { state, problem } = readState(dir);
    node.problem = problem;
    if (state) {
      node.sessionId = state.session_id;
      applyState(node, options.liveStates?.get(state.session_id) ?? state);
    }
    if (depth >= maxDepth) return node;
    let records;
    try {
      records = readJsonIfExists(paths.children, childrenFileSchema)?.children ?? [];
    } catch (error) {
      node.problem = [node.problem, `children.json: ${(error as Error).message}`].filter(Boolean).join('; ');
      return node;
    }
    for (const rec of records) {
      const childDir = rec.session_id ? path.join(paths.childrenDir, rec.session_id) : null;
      const child: SessionTreeNode =
        childDir && fs.existsSync(childDir)
          ? load(childDir, depth + 1)
          : {
              sessionId: rec.session_id,
              sessionDir: childDir,
              goal: null,
              status: null,
              stop: null,
              iterations: 0,
              cost: rec.usage ? { own: rec.usage.cost_usd, children: 0, total: rec.usage.cost_usd } : null,
              activeChildSessionId: null,
              child: null,
              children: [],
              problem: null,
            };
      child.child = {
        requestFile: rec.request_file,
        status: rec.status,
        reason: rec.reason,
        outcome: rec.outcome,
        maxCostUsd: rec.max_cost_usd ?? null,
      };
      node.children.push(child);
    }
    return node;
  };
  return load(sessionDir, 0);
}

function describe(node: SessionTreeNode, activeId: string | null): string {
  const parts: string[] = [];
  const head = node.child
    ? `${node.child.requestFile}${node.sessionId ? ` → ${node.sessionId}` : ''}`
    : (node.sessionId ?? '(unknown session)');
  parts.push(head);
  const terminal = node.child && !['dispatching', 'running'].includes(node.child.status);
  // A finished child is described by its parent's record; a live one by its own state.json.
  const status = terminal ? node.child?.status : (node.status ?? node.child?.status ?? 'unknown');
  let line = `${status}`;
  if (node.child?.status === 'rejected') line += `: ${node.child.reason ?? 'invalid request'}`;
  else if (terminal && node.child?.outcome) line += ` (${node.child.outcome})`;
  else if (!node.child && node.status === 'stopped' && node.stop?.reason) {
    line += ` (${describeStop(node.stop.kind, node.stop.reason)})`;
  }
  parts.push(line);
  if (node.child?.status !== 'rejected') {
    parts.push(`${node.iterations} iteration${node.iterations === 1 ? '' : 's'}`);
    if (node.cost) {
      parts.push(
        node.cost.children > 0
          ? `${formatUsd(node.cost.total)} (own ${formatUsd(node.cost.own)} + children ${formatUsd(node.cost.children)})`
          : formatUsd(node.cost.total),
      );
    }
    if (node.child?.maxCostUsd !== null && node.child?.maxCostUsd !== undefined) {
      parts.push(`budget ${formatUsd(node.child.maxCostUsd)}`);
    }
  }
  if (activeId && node.sessionId === activeId) parts.push('◀ active');
  if (node.problem) parts.push(`[${node.problem}]`);
  return parts.join('  ·  ').replace('  ·  ', '  ');
}

/**
 * The tree as text, one line per session: request file → session id, status (with the stop reason or the
 * child's outcome), iterations and cost (subtree included), children indented below their parent.
 */
export function renderSessionTree(root: SessionTreeNode): string {
  const lines: string[] = [describe(root, null)];
  const walk = (node: SessionTreeNode, prefix: string) => {
    node.children.forEach((child, i) => {
      const last = i === node.children.length - 1;
      lines.push(`${prefix}${last ? '└─ ' : '├─ '}${describe(child, node.activeChildSessionId)}`);
      walk(child, `${prefix}${last ? '   ' : '│  '}`);
    });
  };
  walk(root, '');
  return `${lines.join('\n')}\n`;
}
