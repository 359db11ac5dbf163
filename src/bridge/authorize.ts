import type { Permission } from '../github/api';

/** Permissions that may drive a session by comment: write or above. */
export const CONTROL_PERMISSIONS: readonly Permission[] = ['admin', 'maintain', 'write'];

/**
 * GitHub puts its placeholder user `ghost` in `sender` when it cannot say who triggered an event, and asks that
 * security logic account for it (docs.github.com/en/webhooks/webhook-events-and-payloads, "The sender
 * property"): it names no one, so it is never authorized, not even through the allowlist.
 */
export function isGhost(login: string): boolean {
  return login.toLowerCase() === 'ghost';
}

export function inAllowlist(login: string, allowlist: readonly string[]): boolean {
  const wanted = login.toLowerCase();
  return allowlist.some((entry) => entry.toLowerCase() === wanted);
}

export function permissionAllows(permission: Permission): boolean {
  return CONTROL_PERMISSIONS.includes(permission);
}

/**
 * Caches repository permissions for a short while, so a burst of keyword comments costs one API call per
 * user and repository. Failures are not cached.
 */
export class PermissionCache {
  private readonly entries = new Map<string, { permission: Permission; until: number }>();
  constructor(
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
    private readonly max = 1000,
  ) {}

  async get(key: string, load: () => Promise<Permission>): Promise<Permission> {
    const hit = this.entries.get(key);
    if (hit && hit.until > this.now()) return hit.permission;
    const permission = await load();
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, { permission, until: this.now() + this.ttlMs });
    return permission;
  }
}
