import { join } from 'node:path';
import type { ProcessGraph } from '../../config/process-graph';
import { derivedNode, missingArtifacts, nodeArtifacts, readBranchState, specId } from '../branch-state';
import { readRecord } from '../registry';
import type { RegistryRecord } from '../schemas';
import { locate, type HostContext } from './context';

/** The work item's checkout on this machine; null before a spawn made one. */
function checkoutPath(ctx: HostContext, workItem: string): string | null {
  const at = locate(ctx, workItem);
  return readRecord(at.dirs, at.slug)?.checkout?.path ?? null;
}

/**
 * Where a work item's agent leaves a node's artifacts: the directory its harness runs in, which spawn.ts records as
 * the record's `cwd`. A registered conversation runs in its own directory (`register --cwd`) and has no checkout; a
 * started one runs in the checkout the spawn made. Before a first spawn a started item has no `cwd`: its checkout,
 * if any. Null: nowhere on this machine yet.
 */
export function artifactDirectory(record: Pick<RegistryRecord, 'cwd' | 'checkout'> | null): string | null {
  return record?.cwd ?? record?.checkout?.path ?? null;
}

/**
 * The node a work item's branch says it is at (branch-state.ts): read from the checkout a start just made, so that
 * a reset or a new state directory picks the graph up where the branch left it. Null: the graph's start node.
 */
export function deriveNode(
  ctx: HostContext,
  input: { workItem: string; graph: ProcessGraph },
): string | null {
  const at = locate(ctx, input.workItem);
  const checkout = checkoutPath(ctx, input.workItem);
  if (checkout === null) return null;
  const id = specId(at.ref);
  return derivedNode(
    input.graph,
    readBranchState(checkout, at.ref),
    (node) => missingArtifacts(checkout, nodeArtifacts(input.graph, node, at.workItem, id)).length === 0,
  );
}

/**
 * The artifacts an agent node must leave that are missing from the directory its agent runs in
 * (artifactDirectory), each as the full path looked for: a node does not succeed without them.
 */
export function nodeArtifactsMissing(
  ctx: HostContext,
  input: { workItem: string; graph: ProcessGraph; node: string },
): string[] {
  const at = locate(ctx, input.workItem);
  const required = nodeArtifacts(input.graph, input.node, at.workItem, specId(at.ref));
  if (required.length === 0) return [];
  const dir = artifactDirectory(readRecord(at.dirs, at.slug));
  if (dir === null) return required;
  return missingArtifacts(dir, required).map((path) => join(dir, path));
}
