import { z } from 'zod';
import type { Actor, RepoRef } from '../github/api';

/**
 * What the webhook payloads the bridge acts on carry, checked with zod (a payload is untrusted input), and the
 * readers every event family shares: who sent it, which repository, which labels.
 */

const user = z.looseObject({ login: z.string(), type: z.string().optional() }).nullable().optional();
const label = z.union([z.string(), z.looseObject({ name: z.string() })]);
const repository = z.looseObject({
  name: z.string(),
  owner: z.looseObject({ login: z.string() }),
  html_url: z.string().optional(),
});
const issue = z.looseObject({
  number: z.number().int().positive(),
  title: z.string().default(''),
  body: z.string().nullable().optional(),
  state: z.string().optional(),
  labels: z.array(label).optional(),
  html_url: z.string().default(''),
  pull_request: z.looseObject({ merged_at: z.string().nullable().optional() }).optional(),
});
const pullRequest = z.looseObject({
  number: z.number().int().positive(),
  title: z.string().default(''),
  body: z.string().nullable().optional(),
  state: z.string().optional(),
  merged: z.boolean().nullable().optional(),
  merged_at: z.string().nullable().optional(),
  labels: z.array(label).optional(),
  html_url: z.string().default(''),
  head: z.looseObject({ ref: z.string() }).optional(),
});
const base = z.looseObject({ action: z.string().optional(), repository, sender: user });

export type UserPayload = z.infer<typeof user>;
export type BasePayload = z.infer<typeof base>;
export type IssuePayload = z.infer<typeof issue>;
export type PullRequestPayload = z.infer<typeof pullRequest>;

export const issueCommentPayload = base.extend({
  issue,
  comment: z.looseObject({
    id: z.number(),
    body: z.string().nullable().default(''),
    user,
    html_url: z.string().default(''),
    created_at: z.string().default(''),
  }),
});
export const issuesPayload = base.extend({ issue, label: label.optional() });
export const pullRequestPayload = base.extend({ pull_request: pullRequest, label: label.optional() });
export const reviewPayload = base.extend({
  pull_request: pullRequest,
  review: z.looseObject({
    id: z.number(),
    body: z.string().nullable().default(''),
    state: z.string().default(''),
    user,
    html_url: z.string().default(''),
    submitted_at: z.string().nullable().optional(),
  }),
});
export const reviewCommentPayload = base.extend({
  pull_request: pullRequest,
  comment: z.looseObject({
    id: z.number(),
    body: z.string().default(''),
    path: z.string().default(''),
    line: z.number().nullable().optional(),
    user,
    html_url: z.string().default(''),
    created_at: z.string().default(''),
  }),
});
export const checkRunPayload = base.extend({
  check_run: z.looseObject({
    id: z.number(),
    name: z.string(),
    status: z.string(),
    conclusion: z.string().nullable().optional(),
    html_url: z.string().nullable().optional(),
    completed_at: z.string().nullable().optional(),
    pull_requests: z.array(
      z.looseObject({
        number: z.number().int().positive(),
        head: z.looseObject({ ref: z.string() }).optional(),
      }),
    ),
  }),
});

/** The label a `labeled` payload added, as the event's optional `label`. */
export function addedLabel(added: z.infer<typeof label> | undefined): { label?: string } {
  if (added === undefined) return {};
  return { label: typeof added === 'string' ? added : added.name };
}

export function labelNames(labels: z.infer<typeof label>[] | undefined): string[] | null {
  if (!labels) return null;
  return labels.map((l) => (typeof l === 'string' ? l : l.name));
}

/** A missing user is GitHub's placeholder `ghost`, whom authorization never trusts. */
export function toActor(u: z.infer<typeof user>): Actor {
  return { login: u?.login ?? 'ghost', type: u?.type ?? 'User' };
}

/** The host comes from the repository's own URL (github.com, or a GitHub Enterprise host). */
export function repoOf(payload: BasePayload, fallbackHost: string): RepoRef {
  let host = fallbackHost;
  try {
    if (payload.repository.html_url) host = new URL(payload.repository.html_url).host.toLowerCase();
  } catch {
    // keep the fallback
  }
  return {
    host,
    owner: payload.repository.owner.login.toLowerCase(),
    repo: payload.repository.name.toLowerCase(),
  };
}
