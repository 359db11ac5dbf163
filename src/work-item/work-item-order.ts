/**
 * Work items in the order `Intl.Collator('en', { numeric: true })` gives them (`…#2` before `…#10`), without
 * building that collator when it is not needed: ICU's collation data costs a command about 20 ms to load, more than
 * sorting a thousand records with it. A ref (letters, digits and `._-:/#`) gets a sort key that orders exactly as
 * the collator does; any other text sorts with the collator itself.
 */

// The collator's primary order: these marks, then numbers by value, then letters with case ignored; only when all
// of that is equal does case decide, lower case first.
const MARKS = '_-:./#';
const KEYABLE = /^[A-Za-z0-9._\-:/#]*$/;

let collator: Intl.Collator | undefined;

/** Sorts in place, by each one's work item; records that compare equal keep their order. */
export function sortByWorkItem<T extends { work_item: string }>(records: T[]): T[] {
  if (records.every((r) => KEYABLE.test(r.work_item))) {
    const keyed = records.map((record, index) => ({ key: sortKey(record.work_item), index, record }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index));
    keyed.forEach(({ record }, i) => (records[i] = record));
    return records;
  }
  collator ??= new Intl.Collator('en', { numeric: true });
  const { compare } = collator;
  return records.sort((a, b) => compare(a.work_item, b.work_item));
}

/**
 * The collator's levels as one string: each unit's primary weight (a mark lowest, then a number as its length and
 * digits without leading zeros, then a letter in lower case), a separator below every weight, and one case mark per
 * unit. Built with replace(), whose loops are native: this runs once per record, before the JIT has warmed up.
 */
function sortKey(text: string): string {
  const primary = text.toLowerCase().replace(/[0-9]+|[._\-:/#]/g, (unit) => {
    const mark = MARKS.indexOf(unit);
    if (mark >= 0) return String.fromCharCode(1 + mark);
    const digits = unit.replace(/^0+(?=.)/, '');
    return `\u0010${String.fromCharCode(0x20 + digits.length)}${digits}`;
  });
  const tertiary = text
    .replace(/[0-9]+/g, '0')
    .replace(/[A-Z]/g, '1')
    .replace(/[^1]/g, '0');
  return `${primary}\u0000${tertiary}`;
}
