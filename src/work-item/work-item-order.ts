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
const UNIT = /[0-9]+|[A-Za-z]|[._\-:/#]/g;

let collator: Intl.Collator | undefined;

/** Sorts in place, by each one's work item; records that compare equal keep their order. */
export function sortByWorkItem<T extends { work_item: string }>(records: T[]): T[] {
  if (records.every((r) => KEYABLE.test(r.work_item))) {
    const keys = new Map(records.map((r) => [r, sortKey(r.work_item)]));
    return records.sort((a, b) => {
      const x = keys.get(a)!;
      const y = keys.get(b)!;
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }
  collator ??= new Intl.Collator('en', { numeric: true });
  const { compare } = collator;
  return records.sort((a, b) => compare(a.work_item, b.work_item));
}

/**
 * The collator's levels as one string: each unit's primary weight (marks lowest, then a number as its length and
 * digits without leading zeros, then the lower-cased letter), a separator below every weight, and one case mark per
 * unit.
 */
function sortKey(text: string): string {
  let primary = '';
  let tertiary = '';
  for (const [unit] of text.matchAll(UNIT)) {
    const mark = MARKS.indexOf(unit);
    if (mark >= 0) {
      primary += String.fromCharCode(1 + mark);
      tertiary += '0';
    } else if (unit[0]! >= '0' && unit[0]! <= '9') {
      const digits = unit.replace(/^0+(?=.)/, '');
      primary += `\u0010${String.fromCharCode(0x20 + digits.length)}${digits}`;
      tertiary += '0';
    } else {
      const lower = unit.toLowerCase();
      primary += lower;
      tertiary += lower === unit ? '0' : '1';
    }
  }
  return `${primary}\u0000${tertiary}`;
}
