import type { Route } from './route';

/** A user's permission on the repository, from `repo.permissions` (a 404 for anyone not listed). */
export const collaboratorRoutes: Route[] = [
  {
    method: 'GET',
    path: /^\/collaborators\/([^/]+)\/permission$/,
    handle(x) {
      const login = decodeURIComponent(x.params[0] ?? '');
      const role = x.repo.permissions.get(login.toLowerCase());
      if (role === undefined) return x.send(404, { message: `${login} is not a user` });
      const permission = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
      x.sendGet({ permission, role_name: role, user: { login } });
    },
  },
];
