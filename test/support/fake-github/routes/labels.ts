import type { Exchange, Route } from './route';

/** `repo.refuseLabels` answers every change of labels; true when it did. */
function refused(x: Exchange): boolean {
  if (!x.repo.refuseLabels) return false;
  x.send(x.repo.refuseLabels.status, { message: x.repo.refuseLabels.message });
  return true;
}

/** Adding labels to an item and removing one; both answer the item's labels. */
export const labelRoutes: Route[] = [
  {
    method: 'POST',
    path: /^\/issues\/(\d+)\/labels$/,
    async handle(x) {
      const item = x.repo.items.get(Number(x.params[0]));
      if (!item) return x.send(404, { message: 'Not Found' });
      const body = await x.readJson();
      const labels = Array.isArray(body.labels) ? body.labels.map(String) : [];
      if (refused(x)) return;
      if (x.repo.strictLabels && labels.some((l) => !x.repo.labels.has(l)))
        return x.send(422, { message: 'Validation Failed' });
      for (const l of labels) if (!item.labels.includes(l)) item.labels.push(l);
      item.updatedAt = x.github.now();
      x.send(
        200,
        item.labels.map((name) => ({ name })),
      );
    },
  },
  {
    method: 'DELETE',
    path: /^\/issues\/(\d+)\/labels\/([^/]+)$/,
    handle(x) {
      const item = x.repo.items.get(Number(x.params[0]));
      const label = decodeURIComponent(x.params[1] ?? '');
      if (!item || !item.labels.includes(label)) return x.send(404, { message: 'Label does not exist' });
      if (refused(x)) return;
      item.labels = item.labels.filter((l) => l !== label);
      item.updatedAt = x.github.now();
      x.send(
        200,
        item.labels.map((name) => ({ name })),
      );
    },
  },
];
