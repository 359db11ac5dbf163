import { userInfo } from 'node:os';
import type { Client } from '@temporalio/client';
import { resolveProcessGraph } from '../config/process-graph-file';
import type { TheLoopConfig } from '../config/schema';
import type { GitHubClient } from '../github/api';
import type { HostContext } from '../work-item/host';
import { HostError } from '../work-item/host/host-error';
import { formatRef, parseWorkItemRef, RefError } from '../work-item/ref';
import type { WorkItemQueues } from '../temporal/work-items';
import { defaultHostId } from '../temporal/queues';
import { hostQueueName } from '../workflows/goal-session/host-queue';
import { CliError, EXIT, usageError } from '../errors';

/**
 * What a work-item use case needs: the config and the state directory (which say where the records live, as they
 * do for the worker). The same for the CLI and the bridge; the GitHub client is built only where a verb posts.
 */
export interface SessionsContext {
  config: TheLoopConfig;
  stateDir: string;
}

export function hostContext(ctx: SessionsContext, github?: GitHubClient | null): HostContext {
  return {
    config: ctx.config,
    stateDir: ctx.stateDir,
    ...(github ? { github } : {}),
  };
}

export function workItemQueues(ctx: SessionsContext): WorkItemQueues {
  const taskQueue = ctx.config.temporal.taskQueue;
  return {
    taskQueue,
    hostQueue: hostQueueName(taskQueue, defaultHostId(ctx.config)),
    graph: resolveProcessGraph(ctx.config.process, null),
  };
}

/** A Temporal client for the length of `fn`; the client library is loaded only by the verbs that call this. */
export async function withTemporal<T>(ctx: SessionsContext, fn: (client: Client) => Promise<T>): Promise<T> {
  const { connectClient } = await import('../temporal/connection.js');
  const { resolveTarget } = await import('../temporal/target.js');
  const connected = await connectClient(resolveTarget(ctx.config, ctx.stateDir));
  try {
    return await fn(connected.client);
  } finally {
    await connected.close();
  }
}

/** The GitHub client when credentials are configured; null otherwise (posting then only warns). */
export async function githubClient(ctx: SessionsContext): Promise<GitHubClient | null> {
  const { createGitHubClientFromConfig, resolveGitHubAuth } = await import('../github/octokit.js');
  try {
    if (resolveGitHubAuth(ctx.config).kind === 'none') return null;
    return createGitHubClientFromConfig(ctx.config, { log: () => undefined });
  } catch {
    return null;
  }
}

export function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'local user';
  }
}

/** The canonical form of a work-item ref; a malformed one is bad input. */
export function canonicalWorkItem(text: string): string {
  try {
    return formatRef(parseWorkItemRef(text));
  } catch (error) {
    if (error instanceof RefError) throw usageError(error.message);
    throw error;
  }
}

/** A host failure as the exit code it means: bad input is a usage error, the rest a failure. */
export function asCliError(error: unknown): never {
  if (error instanceof HostError) {
    throw new CliError(error.message, error.kind === 'bad-input' ? EXIT.usage : EXIT.failure);
  }
  if (error instanceof RefError) throw usageError(error.message);
  throw error;
}

/** Which work items a verb acts on: the ones named, or all this machine holds. */
export type WorkItemSelection = { all: true } | { all: false; workItems: string[] };
