import { createHash } from 'node:crypto';

/**
 * A work-item ref: `github:[HOST/]OWNER/REPO#N`. GitHub names are case-insensitive, so the canonical form
 * is lower-case and omits the default host; the canonical form names the workflow, the files and tmux.
 */
export interface WorkItemRef {
  provider: 'github';
  /** API host; `github.com` unless the ref names another (GitHub Enterprise). */
  host: string;
  owner: string;
  repo: string;
  number: number;
}

export const DEFAULT_GITHUB_HOST = 'github.com';

const OWNER = /^[a-z0-9](?:[a-z0-9-]{0,38})$/;
const REPO = /^[a-z0-9._-]{1,100}$/;
const HOST = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+(?::\d{1,5})?$/;
const NUMBER = /^[1-9][0-9]{0,9}$/;

export class RefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefError';
  }
}

/** Strict: anything that is not exactly a ref throws a RefError naming the part that is wrong. */
export function parseWorkItemRef(text: string): WorkItemRef {
  const input = text.trim();
  const shape = /^github:([^#\s]+)#([^#\s]*)$/.exec(input);
  if (!shape) {
    throw new RefError(
      `malformed work-item ref '${text}': expected github:OWNER/REPO#N (optionally github:HOST/OWNER/REPO#N)`,
    );
  }
  const path = (shape[1] ?? '').toLowerCase();
  const numberText = shape[2] ?? '';
  const parts = path.split('/');
  let host = DEFAULT_GITHUB_HOST;
  let owner: string;
  let repo: string;
  if (parts.length === 2) {
    [owner, repo] = [parts[0] ?? '', parts[1] ?? ''];
  } else if (parts.length === 3) {
    [host, owner, repo] = [parts[0] ?? '', parts[1] ?? '', parts[2] ?? ''];
    if (!HOST.test(host) || !portInRange(host))
      throw new RefError(`malformed work-item ref '${text}': '${host}' is not a host name`);
  } else {
    throw new RefError(
      `malformed work-item ref '${text}': expected OWNER/REPO (or HOST/OWNER/REPO) before '#'`,
    );
  }
  if (!OWNER.test(owner))
    throw new RefError(`malformed work-item ref '${text}': '${owner}' is not a GitHub owner`);
  if (!REPO.test(repo) || repo === '.' || repo === '..' || repo.endsWith('.git')) {
    throw new RefError(`malformed work-item ref '${text}': '${repo}' is not a repository name`);
  }
  if (!NUMBER.test(numberText)) {
    throw new RefError(
      `malformed work-item ref '${text}': '#${numberText}' is not an issue or pull request number`,
    );
  }
  return { provider: 'github', host, owner, repo, number: Number(numberText) };
}

function portInRange(host: string): boolean {
  const port = /:(\d+)$/.exec(host)?.[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

export function formatRef(ref: WorkItemRef): string {
  const host = ref.host === DEFAULT_GITHUB_HOST ? '' : `${ref.host}/`;
  return `github:${host}${ref.owner}/${ref.repo}#${ref.number}`;
}

/** Canonicalizes a ref given as text (throws RefError when malformed). */
export function canonicalRef(text: string): string {
  return formatRef(parseWorkItemRef(text));
}

/**
 * One safe name for files and tmux: `[a-z0-9_-]` only (tmux rewrites '.' and ':' in session names), readable,
 * and injective thanks to a short hash of the canonical ref (owner and repository names may contain '-').
 */
export function refSlug(ref: WorkItemRef): string {
  const clean = (s: string) => s.replace(/[^a-z0-9_-]/g, '_');
  const host = ref.host === DEFAULT_GITHUB_HOST ? '' : `${clean(ref.host)}-`;
  const hash = createHash('sha256').update(formatRef(ref)).digest('hex').slice(0, 6);
  return `github-${host}${ref.owner}-${clean(ref.repo)}-${ref.number}-${hash}`;
}

export function tmuxSessionName(ref: WorkItemRef): string {
  return `loop-${refSlug(ref)}`;
}

/** `16`, `#16`, or a full ref; a bare number means the work item's own repository. */
export function parsePullRequestRef(text: string, workItem: WorkItemRef): WorkItemRef {
  const trimmed = text.trim();
  const bare = /^#?([0-9]+)$/.exec(trimmed);
  if (bare) {
    const n = bare[1] ?? '';
    if (!NUMBER.test(n)) throw new RefError(`malformed pull request '${text}': '${n}' is not a number`);
    return { ...workItem, number: Number(n) };
  }
  if (trimmed.startsWith('github:')) return parseWorkItemRef(trimmed);
  throw new RefError(
    `malformed pull request '${text}': expected its number (16, #16) or a full ref (github:OWNER/REPO#16)`,
  );
}
