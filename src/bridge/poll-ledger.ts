import { z } from 'zod';
import type { WorkItemDirs } from '../work-item/paths';
import { readPortable, updatePortable } from '../work-item/portable';
import { parseWorkItemRef, refSlug } from '../work-item/ref';
import { itemLedgerSchema, type ItemLedger, type PollLedgerStore } from './poller';

/** The `poll` section of a work item's portable record: one ledger per polled item (the item and its PRs). */
export const pollSectionSchema = z.looseObject({
  v: z.literal(1),
  items: z.record(z.string(), itemLedgerSchema),
});
export type PollSection = z.infer<typeof pollSectionSchema>;

/** Ledgers in `<state.root>/portable/<slug>.json`, `poll` section, written under the record's lock. */
export function createPortablePollLedger(dirs: WorkItemDirs): PollLedgerStore {
  const slugOf = (workItem: string) => refSlug(parseWorkItemRef(workItem));
  return {
    get(workItem, subject) {
      const record = readPortable(dirs, slugOf(workItem));
      const parsed = pollSectionSchema.safeParse(record?.poll);
      return parsed.success ? (parsed.data.items[subject] ?? null) : null;
    },
    async put(workItem, subject, ledger: ItemLedger) {
      await updatePortable(dirs, slugOf(workItem), workItem, (current) => {
        const parsed = pollSectionSchema.safeParse(current.poll);
        const section: PollSection = parsed.success ? parsed.data : { v: 1, items: {} };
        return { ...current, poll: { ...section, items: { ...section.items, [subject]: ledger } } };
      });
    },
  };
}
