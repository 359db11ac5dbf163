import { readPortable } from '../work-item/portable';
import { parseWorkItemRef, refSlug } from '../work-item/ref';
import { listRecords } from '../work-item/registry';
import type { WorkItemDirs } from '../work-item/paths';
import type { WorkItemKnowledge } from './ingress';

/**
 * Routing and gating facts from this machine's work-item state: the registry's recorded pull requests
 * (link-pr, pr create; kept after a close — only reset forgets them) and the portable control section (disarmed after stop / cleanup). The registry scan is
 * cached briefly: a burst of deliveries reads the directory once.
 */
export function createLocalKnowledge(dirs: WorkItemDirs, cacheMs = 1000): WorkItemKnowledge {
  let cache: { at: number; links: Map<string, string> } | null = null;
  function links(): Map<string, string> {
    const now = Date.now();
    if (cache && now - cache.at < cacheMs) return cache.links;
    const map = new Map<string, string>();
    for (const record of listRecords(dirs.registryDir).records) {
      for (const pr of record.pull_requests) map.set(pr, record.work_item);
    }
    cache = { at: now, links: map };
    return map;
  }
  return {
    recordedLink(pullRef) {
      return links().get(pullRef) ?? null;
    },
    isDisarmed(workItem) {
      try {
        const portable = readPortable(dirs, refSlug(parseWorkItemRef(workItem)));
        return portable?.control?.armed === false;
      } catch {
        return false;
      }
    },
  };
}
