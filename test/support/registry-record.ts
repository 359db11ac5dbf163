import { parseWorkItemRef, refSlug } from '../../src/work-item/ref';
import type { RegistryRecord } from '../../src/work-item/schemas';

/** A registry record as the host writes it, for the pull requests recorded as delivering the work item. */
export function sessionRecord(workItem: string, pullRequests: string[], cwd: string | null): RegistryRecord {
  const at = new Date().toISOString();
  return {
    schema_version: 1,
    work_item: workItem,
    slug: refSlug(parseWorkItemRef(workItem)),
    status: 'active',
    harness: 'claude',
    harness_session_id: null,
    cwd,
    registered_at: at,
    updated_at: at,
    workflow_id: `work-item/${workItem}`,
    run_id: null,
    host_queue: 'q.host.h',
    session_dir: '/nonexistent',
    tmux: null,
    checkout: null,
    pull_requests: pullRequests,
    last_control: null,
    closed_at: null,
    closed_reason: null,
  };
}
