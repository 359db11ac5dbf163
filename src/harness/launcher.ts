import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LaunchEvent, LaunchRequest } from './launch-protocol';
import { spawnDetached } from './spawn-detached';

export type LaunchSpec = Omit<LaunchRequest, 'type' | 'id'>;

export interface Launched {
  /** The process started (its pid leads its own group), or never did (the spawn error). */
  spawned: Promise<{ pid: number } | { error: NodeJS.ErrnoException }>;
  /** Its exit; `lost` when the launcher died first and the exit can no longer be observed. */
  exited: Promise<{ code: number | null; signal: string | null; lost: boolean }>;
}

/** dist/src/harness/launcher-main.js, also when this module runs from src/ under the test runner. */
const LAUNCHER_SCRIPT = [
  join(__dirname, 'launcher-main.js'),
  resolve(__dirname, '..', '..', 'dist', 'src', 'harness', 'launcher-main.js'),
].find((file) => existsSync(file));

interface Pending {
  onSpawned(result: { pid: number } | { error: NodeJS.ErrnoException }): void;
  onExit(exit: { code: number | null; signal: string | null; lost: boolean }): void;
}

let launcher: ChildProcess | null = null;
const pending = new Map<number, Pending>();
let nextId = 1;

function errno(code: string, message: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(message);
  error.code = code;
  return error;
}

function deliver(event: LaunchEvent): void {
  const run = pending.get(event.id);
  if (!run) return;
  if (event.type === 'spawned') run.onSpawned({ pid: event.pid });
  else if (event.type === 'spawn-error') {
    pending.delete(event.id);
    run.onSpawned({ error: errno(event.code, event.message) });
  } else {
    pending.delete(event.id);
    run.onExit({ code: event.code, signal: event.signal, lost: false });
  }
  holdOpen();
}

/** The launcher keeps this process alive only while it has processes running. */
function holdOpen(): void {
  if (!launcher) return;
  if (pending.size > 0) {
    launcher.ref();
    launcher.channel?.ref();
  } else {
    launcher.unref();
    launcher.channel?.unref();
  }
}

function startLauncher(script: string): ChildProcess {
  const child = fork(script, [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: [],
    serialization: 'json',
  });
  child.on('message', (event: LaunchEvent) => deliver(event));
  child.once('exit', () => {
    if (launcher === child) launcher = null;
    // Whatever it was running can no longer be watched: the caller ends those process groups itself.
    for (const [id, run] of pending) {
      pending.delete(id);
      run.onSpawned({ error: errno('ECHILD', 'the harness launcher exited before reporting the spawn') });
      run.onExit({ code: null, signal: null, lost: true });
    }
  });
  child.on('error', () => {
    // Reported through 'exit' (or a failed send, handled by the caller's spawn error).
  });
  return child;
}

/**
 * Starts a process in its own process group through the launcher (or in this process where the launcher script
 * is missing: an unbuilt checkout).
 */
export function launchProcess(spec: LaunchSpec): Launched {
  const id = nextId++;
  let onSpawned!: Pending['onSpawned'];
  let onExit!: Pending['onExit'];
  const spawned = new Promise<{ pid: number } | { error: NodeJS.ErrnoException }>((r) => (onSpawned = r));
  const exited = new Promise<{ code: number | null; signal: string | null; lost: boolean }>(
    (r) => (onExit = r),
  );
  const request: LaunchRequest = { type: 'launch', id, ...spec };

  if (!LAUNCHER_SCRIPT) {
    spawnDetached(request, (event) => {
      if (event.type === 'spawned') onSpawned({ pid: event.pid });
      else if (event.type === 'spawn-error') onSpawned({ error: errno(event.code, event.message) });
      else onExit({ code: event.code, signal: event.signal, lost: false });
    });
    return { spawned, exited };
  }

  launcher ??= startLauncher(LAUNCHER_SCRIPT);
  pending.set(id, { onSpawned, onExit });
  holdOpen();
  launcher.send(request, (error) => {
    if (!error || !pending.has(id)) return;
    pending.delete(id);
    holdOpen();
    onSpawned({ error: errno('EPIPE', `could not reach the harness launcher: ${error.message}`) });
  });
  return { spawned, exited };
}
