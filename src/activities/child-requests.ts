import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadRoutinesFile } from '../config/routines';
import { describeZodError, readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { SIZE_LIMITS } from '../session/limits';
import { readRegularFileNoFollow } from '../session/no-follow';
import { sessionPaths } from '../session/paths';
import {
  childRequestSchema,
  childrenFileSchema,
  sessionStateFileSchema,
  type ChildrenFile,
  type Usage,
} from '../session/schemas';
import { goalHash } from '../session/session-id';
import type { ChildRequestScan } from '../workflows/children/plan';
import type {
  Flush,
  IterationOutcome,
  IterationRequest,
  ProjectionReport,
} from '../workflows/goal-session/types';
import type { ActivityDeps } from './deps';
import { flushWriter } from './flush-writer';
import { errorLine } from '../errors';
import { BoundedJsonError, parseBoundedJson } from '../json/bounded-json';

/** A request file is a short JSON object; anything bigger is a mistake, not a request. */
const MAX_REQUEST_BYTES = SIZE_LIMITS.childRequestBytes;
/** The agent writes it: a flat object (depth 1), so 8 is generous and nothing deep reaches zod or a log line. */
const REQUEST_BOUNDS = { maxDepth: 8, maxBytes: MAX_REQUEST_BYTES };

function requestFingerprint(stat: fs.Stats): string {
  return `${stat.ino}-${stat.size}-${Math.round(stat.mtimeMs)}`;
}

function knownFingerprints(sessionDir: string): Set<string> {
  try {
    const file = readJsonIfExists(sessionPaths(sessionDir).children, childrenFileSchema);
    return new Set((file?.children ?? []).map((c) => `${c.request_file}\0${c.request_fingerprint ?? ''}`));
  } catch {
    return new Set(); // an unreadable children.json only costs re-reading the requests
  }
}

/** A request file as seen, before (or instead of) reading it. */
function unreadScan(file: string, stat: fs.Stats) {
  return {
    file,
    fingerprint: requestFingerprint(stat),
    modifiedAt: stat.mtime.toISOString(),
    request: null,
    goalHash: null,
    routines: null,
    routinesFile: null,
  };
}

function scanOne(sessionDir: string, file: string, full: string, stat: fs.Stats): ChildRequestScan {
  const base = unreadScan(file, stat);
  if (stat.size > MAX_REQUEST_BYTES) {
    return { ...base, error: `request file is ${stat.size} bytes; the limit is ${MAX_REQUEST_BYTES}` };
  }
  let raw: unknown;
  try {
    raw = parseBoundedJson(readRegularFileNoFollow(full, MAX_REQUEST_BYTES), REQUEST_BOUNDS);
  } catch (error) {
    const reason = error instanceof BoundedJsonError ? error.message : `not valid JSON: ${errorLine(error)}`;
    return { ...base, error: reason };
  }
  const parsed = childRequestSchema.safeParse(raw);
  if (!parsed.success) return { ...base, error: describeZodError(parsed.error) };
  const request = parsed.data;
  let routines = null;
  let routinesFile = null;
  if (request.workflows !== undefined) {
    routinesFile = path.resolve(sessionDir, request.workflows);
    try {
      routines = loadRoutinesFile(routinesFile);
    } catch (error) {
      return { ...base, error: `workflows: ${(error as Error).message}` };
    }
  }
  return { ...base, request, goalHash: goalHash(request.goal), routines, routinesFile, error: null };
}

/**
 * The `*.json` files of child_requests/ that children.json does not already record with the same fingerprint,
 * validated. Never throws: a file that cannot be read or parsed comes back with its `error`.
 */
export function scanChildRequests(sessionDir: string): ChildRequestScan[] {
  const dir = sessionPaths(sessionDir).childRequestsDir;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const known = knownFingerprints(sessionDir);
  const out: ChildRequestScan[] = [];
  for (const file of names.sort()) {
    if (!file.endsWith('.json') || file.startsWith('.')) continue;
    const full = path.join(dir, file);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(full);
    } catch {
      continue; // removed while we looked
    }
    if (stat.isSymbolicLink()) {
      out.push({ ...unreadScan(file, stat), error: 'a symbolic link; a request must be a regular file' });
      continue;
    }
    if (!stat.isFile()) continue;
    if (known.has(`${file}\0${requestFingerprint(stat)}`)) continue;
    try {
      out.push(scanOne(sessionDir, file, full, stat));
    } catch (error) {
      out.push({ ...unreadScan(file, stat), error: `cannot read the request: ${(error as Error).message}` });
    }
  }
  return out;
}

/**
 * runIteration with the child_requests/ scan as its epilogue: the workflow learns about new requests from the
 * iteration's own result, so a session that asks for no children pays one readdir and no extra activity.
 */
export function withChildRequestScan<
  A extends { runIteration(req: IterationRequest): Promise<IterationOutcome> },
>(activities: A): A {
  const { runIteration } = activities;
  return {
    ...activities,
    async runIteration(req: IterationRequest): Promise<IterationOutcome> {
      const outcome = await runIteration(req);
      let childRequests: ChildRequestScan[] = [];
      try {
        childRequests = scanChildRequests(req.input.sessionDir);
      } catch {
        // scanChildRequests does not throw; the parent must never fail because of an inbox
      }
      return childRequests.length > 0 ? { ...outcome, childRequests } : outcome;
    },
  };
}

export function createChildActivities(deps: ActivityDeps) {
  const writeFlush = flushWriter(deps);
  return {
    /** children.json first (the index), then state.json and the events. */
    recordChildren({ flush, children }: { flush: Flush; children: ChildrenFile }): Promise<ProjectionReport> {
      writeJsonAtomic(sessionPaths(flush.sessionDir).children, childrenFileSchema, children);
      return writeFlush(flush);
    },

    /** A child that failed or was terminated returns no result: its state.json still holds what it spent. */
    async readSessionUsage(sessionDir: string): Promise<Usage | null> {
      try {
        return readJsonIfExists(sessionPaths(sessionDir).state, sessionStateFileSchema)?.usage.total ?? null;
      } catch {
        return null;
      }
    },
  };
}
