import type { TheLoopConfig } from '../config/schema';
import type { TemporalTarget } from './target';

/** The embedded dev server's Web UI; null for a cluster or Cloud, whose UI address the-loop does not know. */
export function webUiAddress(config: TheLoopConfig, target: TemporalTarget): string | null {
  const { ip, uiPort } = config.temporal.devServer;
  return target.source === 'embedded' ? `http://${ip}:${uiPort}` : null;
}

/** A workflow's page in the Web UI, or null without a known UI. */
export function workflowUiLink(
  uiAddress: string | null,
  namespace: string,
  workflowId: string,
): string | null {
  return uiAddress
    ? `${uiAddress}/namespaces/${namespace}/workflows/${encodeURIComponent(workflowId)}`
    : null;
}
