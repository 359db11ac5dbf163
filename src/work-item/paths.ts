import { join, resolve } from 'node:path';
import type { TheLoopConfig } from '../config/schema';

/** Where the work-item layer keeps its state on this machine. */
export interface WorkItemDirs {
  /** <state.root>: the state directory unless state.root says otherwise. */
  stateRoot: string;
  /** One JSON record per session (routing.registryDir, default <state.root>/local). */
  registryDir: string;
  /** <state.root>/portable/<slug>.json: control, poll, graph. */
  portableDir: string;
  /** <state.root>/events/<slug>.jsonl: appended, never rewritten. */
  eventsDir: string;
  /** <state.root>/sessions/<session_id>/: the layout doc's session directory of each work-item session. */
  sessionsDir: string;
  /** workspace.root, default <state.root>/workspaces. */
  workspaceRoot: string;
}

/**
 * The one place the work-item storage is resolved: from the config and the state directory, the same for the
 * worker that hosts the sessions (its activity deps) and for the CLI and the bridge that read what it wrote.
 */
export function workItemDirs(config: TheLoopConfig, stateDir: string): WorkItemDirs {
  const stateRoot = resolve(config.state.root ?? stateDir);
  return {
    stateRoot,
    registryDir: resolve(config.routing.registryDir ?? join(stateRoot, 'local')),
    portableDir: join(stateRoot, 'portable'),
    eventsDir: join(stateRoot, 'events'),
    sessionsDir: join(stateRoot, 'sessions'),
    workspaceRoot: resolve(config.workspace.root ?? join(stateRoot, 'workspaces')),
  };
}

export const registryFile = (dirs: WorkItemDirs, slug: string) => join(dirs.registryDir, `${slug}.json`);
export const portableFile = (dirs: WorkItemDirs, slug: string) => join(dirs.portableDir, `${slug}.json`);
export const eventLogFile = (dirs: WorkItemDirs, slug: string) => join(dirs.eventsDir, `${slug}.jsonl`);
