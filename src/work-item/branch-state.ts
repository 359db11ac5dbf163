import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { renderPrompt, type ProcessGraph } from '../config/process-graph';
import { git, gitSucceeds, type GitOptions } from './git';
import type { WorkItemRef } from './ref';

/**
 * docs/specs/<id>/work-item-state.json on the work item's branch: the node the work item is at, checked in with
 * the node artifacts, so that the pointer outlives a reset and this machine (the graph re-derives it on start).
 */
export const workItemStateSchema = z.object({
  schema_version: z.literal(1),
  work_item: z.string().min(1),
  node: z.string().min(1),
  previous: z.string().nullable(),
  at: z.iso.datetime({ offset: true }),
});
export type WorkItemState = z.infer<typeof workItemStateSchema>;

/** The spec id of a work item: what `{id}` in a node's prompt and artifacts stands for. */
export function specId(ref: WorkItemRef): string {
  return String(ref.number);
}

export function stateFilePath(ref: WorkItemRef): string {
  return `docs/specs/${specId(ref)}/work-item-state.json`;
}

/** The files an agent node must leave, relative to the directory it runs in (`{ref}` and `{id}` filled in). */
export function nodeArtifacts(graph: ProcessGraph, node: string, workItem: string, id: string): string[] {
  const current = graph.nodes[node];
  if (current?.kind !== 'agent') return [];
  return current.artifacts.map((path) => renderPrompt({ ...current, prompt: path }, workItem, id));
}

/** The artifacts of `node` missing from `dir` (a checkout, or a registered conversation's directory). */
export function missingArtifacts(dir: string, artifacts: readonly string[]): string[] {
  return artifacts.filter((path) => !existsSync(join(dir, path)));
}

export function readBranchState(checkout: string, ref: WorkItemRef): WorkItemState | null {
  try {
    return readJsonIfExists(join(checkout, stateFilePath(ref)), workItemStateSchema);
  } catch {
    return null; // a state file someone broke is no pointer: the artifacts decide
  }
}

/**
 * Where a work item is, re-derived from its branch: the node its state file names (a node of this graph that is no
 * terminal: a finished or cleaned-up item starts over), else — no state file — the start node, walked along
 * `success` edges while each agent node's artifacts are all there. Null: the graph's start node, nothing known.
 */
export function derivedNode(
  graph: ProcessGraph,
  state: Pick<WorkItemState, 'node'> | null,
  artifactsPresent: (node: string) => boolean,
): string | null {
  if (state !== null) {
    const node = graph.nodes[state.node];
    return node && node.kind !== 'terminal' ? state.node : null;
  }
  let at = graph.start;
  const seen = new Set<string>();
  for (;;) {
    const node = graph.nodes[at];
    if (node?.kind !== 'agent' || node.artifacts.length === 0 || seen.has(at) || !artifactsPresent(at)) break;
    seen.add(at);
    const next = node.on.success;
    if (next === undefined || graph.nodes[next]?.kind === 'terminal') break;
    at = next;
  }
  return at === graph.start ? null : at;
}

/** An identity for the commit when git has none configured (a fresh machine): the commit must not fail on it. */
async function identityArgs(options: GitOptions): Promise<string[]> {
  if (await gitSucceeds(['config', 'user.email'], options)) return [];
  return ['-c', 'user.name=the-loop', '-c', 'user.email=the-loop@localhost'];
}

/**
 * Writes the state file into the checkout and commits it with the given artifacts (those present) on the branch,
 * then pushes the branch to origin. A push that fails is returned as a warning: the commit stands locally.
 */
export async function commitBranchState(
  checkout: { path: string; branch: string },
  ref: WorkItemRef,
  state: WorkItemState,
  artifacts: readonly string[],
  options: Omit<GitOptions, 'cwd'> = {},
): Promise<string[]> {
  const inCheckout: GitOptions = { ...options, cwd: checkout.path };
  const stateFile = stateFilePath(ref);
  writeJsonAtomic(join(checkout.path, stateFile), workItemStateSchema, state);
  const paths = [stateFile, ...artifacts.filter((path) => existsSync(join(checkout.path, path)))];
  await git(['add', '--', ...paths], inCheckout);
  const message = `the-loop: ${state.work_item} at ${state.node}`;
  const identity = await identityArgs(inCheckout);
  await git([...identity, 'commit', '--quiet', '--allow-empty', '-m', message, '--', ...paths], inCheckout);
  // a push with no credentials fails at once rather than prompting on the worker's terminal until git times out
  const noPrompt = { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: '0' };
  const pushed = await gitSucceeds(['push', '--quiet', 'origin', `HEAD:refs/heads/${checkout.branch}`], {
    ...inCheckout,
    env: noPrompt,
  });
  return pushed
    ? []
    : [`could not push ${checkout.branch} to origin: the node is committed on this machine only`];
}
