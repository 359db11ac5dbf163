import { existsSync } from 'node:fs';
import { withMarker } from '../../github/marker';
import { errorLine } from '../../errors';
import { phaseLabel, type ProcessGraph } from '../../config/process-graph';
import { commitBranchState, nodeArtifacts, specId } from '../branch-state';
import { appendWorkItemEvent } from '../event-log';
import { updatePortable } from '../portable';
import { readRecord } from '../registry';
import { locate, processEnv, type HostContext, type Located } from './context';

export interface EnterNodeInput {
  workItem: string;
  node: string;
  /** The node whose phase label this one replaces; null on the first node. */
  previous: string | null;
  /** The frozen graph, copied into the portable record's `graph` section. */
  graph: ProcessGraph;
  /** The one comment a gate posts on the ticket; null for no comment. */
  comment: string | null;
}

/**
 * The work item moved to a node: the portable record's graph section, the state file and the previous node's
 * artifacts committed on the work item's branch, then — best effort, a refusal only warns — the phase label (the
 * previous one removed) and the gate's comment.
 */
export async function enterNode(ctx: HostContext, input: EnterNodeInput): Promise<{ warnings: string[] }> {
  const at = locate(ctx, input.workItem);
  const now = new Date().toISOString();
  await updatePortable(at.dirs, at.slug, at.workItem, (p) => ({
    ...p,
    graph: { node: input.node, at: now, previous: input.previous, frozen: input.graph },
  }));
  appendWorkItemEvent(at.dirs, at.slug, at.workItem, 'graph.entered', {
    node: input.node,
    previous: input.previous,
  });
  const warnings = await checkInNode(ctx, at, input, now);
  const github = ctx.github;
  if (!github) {
    warnings.push(`no phase label on ${at.workItem}: no GitHub client is configured (no token)`);
    for (const warning of warnings) ctx.log?.(`warning: ${warning}`);
    return { warnings };
  }
  const repo = { host: at.ref.host, owner: at.ref.owner, repo: at.ref.repo };
  const attempt = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (error) {
      warnings.push(`could not ${what} on ${at.workItem}: ${errorLine(error)}`);
    }
  };
  await attempt(`add the label ${phaseLabel(input.node)}`, () =>
    github.addLabels(repo, at.ref.number, [phaseLabel(input.node)]),
  );
  if (input.previous !== null && input.previous !== input.node) {
    const previous = input.previous;
    await attempt(`remove the label ${phaseLabel(previous)}`, () =>
      github.removeLabel(repo, at.ref.number, phaseLabel(previous)),
    );
  }
  const comment = ctx.config.github.announceWaits.includes('gate') ? input.comment : null;
  if (comment !== null) {
    await attempt('comment the gate', () => github.postComment(repo, at.ref.number, withMarker(comment)));
  }
  for (const warning of warnings) ctx.log?.(`warning: ${warning}`);
  return { warnings };
}

/** The state file and the artifacts of the node left, committed on the branch of the checkout (when there is one). */
async function checkInNode(
  ctx: HostContext,
  at: Located,
  input: EnterNodeInput,
  now: string,
): Promise<string[]> {
  const checkout = readRecord(at.dirs, at.slug)?.checkout ?? null;
  if (checkout === null || !existsSync(checkout.path)) return [];
  const artifacts =
    input.previous === null ? [] : nodeArtifacts(input.graph, input.previous, at.workItem, specId(at.ref));
  const state = {
    schema_version: 1 as const,
    work_item: at.workItem,
    node: input.node,
    previous: input.previous,
    at: now,
  };
  try {
    return await commitBranchState(checkout, at.ref, state, artifacts, { env: processEnv(ctx) });
  } catch (error) {
    return [`could not check ${input.node} in on ${checkout.branch}: ${errorLine(error)}`];
  }
}
