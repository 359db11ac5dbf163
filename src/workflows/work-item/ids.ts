/** Workflow ids of work-item sessions; no Node built-ins, so workflows, the CLI and the bridge all share it. */
export const WORK_ITEM_WORKFLOW_PREFIX = 'work-item/';

/** `work-item/github:octo/repo#15` for the canonical ref `github:octo/repo#15`. */
export function workItemWorkflowId(canonicalRef: string): string {
  return `${WORK_ITEM_WORKFLOW_PREFIX}${canonicalRef}`;
}
