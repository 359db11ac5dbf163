import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LaunchEvent, LaunchRequest } from './launch-protocol';
import { spawnDetached } from './spawn-detached';

export type LaunchSpec = Omit<LaunchRequest, 'type' | 'id'>;

export type SpawnOutcome =
  { pid: number; cgroup: string | null; sealed: boolean } | { error: NodeJS.ErrnoException };
export interface ExitOutcome {
  code: number | null;
  signal: string | null;
  /** The launcher died first: the exit can no longer be observed (the caller ends the process group). */
  lost: boolean;
}

export interface Launched {
  /** The process started (its pid leads its own group), or never did. */
  spawned: Promise<SpawnOutcome>;
  exited: Promise<ExitOutcome>;
}

interface PendingRun {
  onSpawned(outcome: SpawnOutcome): void;
  onExit(outcome: ExitOutcome): void;
}

/** dist/src/harness/launcher-main.js, also when this module runs from src/ under the test runner. */
const LAUNCHER_SCRIPT = [
  join(__dirname, 'launcher-main.js'),
  resolve(__dirname, '..', '..', 'dist', 'src', 'harness', 'launcher-main.js'),
].find((file) => existsSync(file));

export function errno(code: string, message: string, filePath?: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(message);
  error.code = code;
  if (filePath !== undefined) error.path = filePath;
  return error;
}

/** A launch event, told to the run it is about. */
function report(run: PendingRun, event: LaunchEvent): void {
  if (event.type === 'spawned') run.onSpawned({ pid: event.pid, cgroup: event.cgroup, sealed: event.sealed });
  else if (event.type === 'spawn-error') run.onSpawned({ error: errno(event.code, event.message) });
  else run.onExit({ code: event.code, signal: event.signal, lost: false });
}

/** One launcher process and the runs it reports on. */
class Launcher {
  private readonly child: ChildProcess;
  private readonly runs = new Map<number, PendingRun>();

  constructor(script: string) {
    this.child = fork(script, [], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      execArgv: [],
      serialization: 'json',
    });
    this.child.on('message', (event: LaunchEvent) => this.deliver(event));
    this.child.once('exit', () => this.lose('the harness launcher exited'));
    // A failed start or send surfaces as 'exit' or as the send callback's error.
    this.child.on('error', () => undefined);
    this.holdOpen();
  }

  get usable(): boolean {
    return this.child.connected;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  launch(request: LaunchRequest, run: PendingRun): void {
    this.runs.set(request.id, run);
    this.holdOpen();
    this.child.send(request, (error) => {
      if (!error || !this.runs.has(request.id)) return;
      this.runs.delete(request.id);
      this.holdOpen();
      run.onSpawned({ error: errno('EPIPE', `could not reach the harness launcher: ${error.message}`) });
    });
  }

  private deliver(event: LaunchEvent): void {
    const run = this.runs.get(event.id);
    if (!run) return;
    // A spawn error or an exit is the run's last event.
    if (event.type !== 'spawned') this.runs.delete(event.id);
    report(run, event);
    this.holdOpen();
  }

  private lose(reason: string): void {
    for (const [id, run] of this.runs) {
      this.runs.delete(id);
      run.onSpawned({ error: errno('ECHILD', `${reason} before reporting the spawn`) });
      run.onExit({ code: null, signal: null, lost: true });
    }
  }

  /** The launcher keeps this process alive only while it has processes to report on. */
  private holdOpen(): void {
    if (this.runs.size > 0) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }
}

let current: Launcher | null = null;
let nextId = 1;

/**
 * Starts a process in its own process group through the launcher (or in this process where the launcher script
 * is missing: an unbuilt checkout).
 */
export function launchProcess(spec: LaunchSpec): Launched {
  let onSpawned!: PendingRun['onSpawned'];
  let onExit!: PendingRun['onExit'];
  const spawned = new Promise<SpawnOutcome>((r) => (onSpawned = r));
  const exited = new Promise<ExitOutcome>((r) => (onExit = r));
  const request: LaunchRequest = { type: 'launch', id: nextId++, ...spec };

  if (!LAUNCHER_SCRIPT) {
    spawnDetached(request, (event) => report({ onSpawned, onExit }, event));
    return { spawned, exited };
  }
  // One that died (or is dying) is replaced rather than handed work it cannot report on.
  if (!current?.usable) current = new Launcher(LAUNCHER_SCRIPT);
  current.launch(request, { onSpawned, onExit });
  return { spawned, exited };
}
