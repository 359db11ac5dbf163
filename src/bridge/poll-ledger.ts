import { z } from 'zod';
import type { WorkItemDirs } from '../work-item/paths';
import { readPortable, updatePortable } from '../work-item/portable';
import { parseWorkItemRef, refSlug } from '../work-item/ref';

/** The ledger of one item (an issue or PR), kept in its work item's portable record, `poll.items[<ref>]`. */
export const itemLedgerSchema = z.object({
  comments: z.object({ lastId: z.number(), since: z.string().nullable() }),
  reviews: z.object({ lastId: z.number() }),
  reviewComments: z.object({ lastId: z.number(), since: z.string().nullable() }),
  /** Keys of check results already delivered (`check:<id>:<conclusion>`), newest last, bounded. */
  checks: z.array(z.string()),
  firstSeenAt: z.string(),
});
export type ItemLedger = z.infer<typeof itemLedgerSchema>;

/** Where poll ledgers live: the work-item layer's portable record (`poll` section). */
export interface PollLedgerStore {
  get(workItem: string, subject: string): ItemLedger | null;
  put(workItem: string, subject: string, ledger: ItemLedger): void | Promise<void>;
}

/** The ledger of an item seen for the first time (or again, after a reset cleared it): nothing read yet. */
export function newLedger(now: string): ItemLedger {
  return {
    comments: { lastId: 0, since: null },
    reviews: { lastId: 0 },
    reviewComments: { lastId: 0, since: null },
    checks: [],
    firstSeenAt: now,
  };
}

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
