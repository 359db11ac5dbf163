import { sortByWorkItem } from '../../../src/work-item/work-item-order';

const collator = new Intl.Collator('en', { numeric: true });
const byCollator = (texts: string[]) => [...texts].sort((a, b) => collator.compare(a, b));
const sorted = (texts: string[]) =>
  sortByWorkItem(texts.map((work_item) => ({ work_item }))).map((r) => r.work_item);

/** A deterministic stream of numbers in [0, 1), so that a failure names the seed that found it. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Ref-like text: runs of letters in either case, numbers (some with leading zeros) and the marks refs use. */
function refLike(next: () => number): string {
  const pieces = [
    'github:',
    'gitlab:',
    'ghe.example.com/',
    'Octo',
    'octo',
    'oCTO',
    '/',
    '#',
    '-',
    '_',
    '.',
    ':',
  ];
  let text = '';
  const length = 1 + Math.floor(next() * 8);
  for (let i = 0; i < length; i++) {
    const roll = next();
    if (roll < 0.4) text += pieces[Math.floor(next() * pieces.length)];
    else if (roll < 0.7) text += String(Math.floor(next() * 1200)).padStart(next() < 0.2 ? 4 : 0, '0');
    else text += String.fromCharCode((next() < 0.5 ? 65 : 97) + Math.floor(next() * 4));
  }
  return text;
}

describe('work items in collator order', () => {
  it('numbers by value: #2 before #10, repo2 before repo10', () => {
    expect(sorted(['github:o/repo10#2', 'github:o/repo2#10', 'github:o/repo2#2'])).toEqual([
      'github:o/repo2#2',
      'github:o/repo2#10',
      'github:o/repo10#2',
    ]);
  });

  it('orders every ref-like text exactly as Intl.Collator("en", { numeric: true }) does', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const base = Array.from({ length: 150 }, () => refLike(next));
      // and texts that differ from another only in case or in leading zeros, where the collator's later levels decide
      const variants = base.map((text) =>
        text.replace(/[a-z]|\d+/gi, (unit) =>
          /\d/.test(unit)
            ? next() < 0.3
              ? `0${unit}`
              : unit
            : next() < 0.3
              ? unit.toUpperCase()
              : unit.toLowerCase(),
        ),
      );
      const texts = [...base, ...variants];
      // the same as the collator's sort, equal ones (#01 and #1) included: sort is stable for both
      expect({ seed, order: sorted(texts) }).toEqual({ seed, order: byCollator(texts) });
    }
  });

  it('text outside the ref alphabet sorts with the collator itself', () => {
    const texts = ['github:o/é#2', 'github:o/e#10', 'github:o/E#1', 'github:o/f #1', 'github:o/ä#1'];
    expect(sorted(texts)).toEqual(byCollator(texts));
  });
});
