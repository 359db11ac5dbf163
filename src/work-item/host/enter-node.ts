import { withMarker } from '../../bridge/marker';
import { errorLine } from '../../errors';
import { phaseLabel, type ProcessGraph } from '../../workflows/process-graph';
import { appendWorkItemEvent } from '../event-log';
import { updatePortable } from '../portable';
import { locate, type HostContext } from './context';

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
 * The work item moved to a node: the portable record's graph section, then — best effort, a refusal only warns —
 * the phase label (the previous one removed) and the gate's comment.
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
  const warnings: string[] = [];
  const github = ctx.github;
  if (!github) {
    warnings.push(`no phase label on ${at.workItem}: no GitHub client is configured (no token)`);
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
  const comment = input.comment;
  if (comment !== null) {
    await attempt('comment the gate', () => github.postComment(repo, at.ref.number, withMarker(comment)));
  }
  for (const warning of warnings) ctx.log?.(`warning: ${warning}`);
  return { warnings };
}
