import { byId, diffRows, isEmpty, type RenderedRow } from '../../../src/board/diff';

const row = (id: string, html = `<tr id="row-${id}"></tr>`, section: RenderedRow['section'] = 'running') => ({
  id,
  section,
  sort: id,
  html,
});

describe('the rows a live update sends', () => {
  it('sends only the new and changed rows, and the ids of the ones that went', () => {
    const before = byId([row('a'), row('b'), row('c')]);
    const after = byId([row('a'), row('b', '<tr>changed</tr>'), row('d'), row('c', undefined, 'needs')]);
    const changes = diffRows(before, after);
    expect(changes.upsert.map((r) => r.id).sort()).toEqual(['b', 'c', 'd']);
    expect(changes.remove).toEqual([]);
    const gone = diffRows(after, byId([row('a')]));
    expect(gone.upsert).toEqual([]);
    expect(gone.remove.sort()).toEqual(['b', 'c', 'd']);
  });

  it('sends nothing when nothing changed, even among a thousand rows', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => row(`r${i}`));
    expect(isEmpty(diffRows(byId(rows), byId(rows.map((r) => ({ ...r })))))).toBe(true);
    const one = rows.map((r, i) => (i === 500 ? { ...r, html: '<tr>new</tr>' } : r));
    expect(diffRows(byId(rows), byId(one)).upsert.map((r) => r.id)).toEqual(['r500']);
  });
});
