import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LoadScaledDeadline } from '../../src/process/load-scaled-deadline';
import type { WorkerProcessSpec } from './worker-process';

const ROOT = resolve(__dirname, '..', '..');
// Jest runs this file from test/support; the benchmark runs it from dist/test/support.
const REPO = existsSync(join(ROOT, 'package.json')) ? ROOT : resolve(ROOT, '..');
export const WORKER_SCRIPT = join(REPO, 'dist', 'test', 'support', 'worker-process.js');

/**
 * Code run as a separate process is the compiled code: refuse to test a dist/ file older than its source (each
 * source against its own output, which an incremental build rewrites whenever the source changes).
 */
export function assertFreshBuild(
  sources: readonly string[] = [
    'test/support/worker-process.ts',
    'src/activities/run-iteration.ts',
    'src/activities/salvage.ts',
    'src/activities/orphans.ts',
    'src/worker/run-worker.ts',
  ],
): void {
  for (const src of sources) {
    const out = join('dist', src.replace(/\.ts$/, '.js'));
    const built = join(REPO, out);
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(REPO, src)).mtimeMs) {
      throw new Error(`${out} is missing or older than ${src}: run \`npm run build\` first`);
    }
  }
}

export interface WorkerProcess {
  pid: number;
  child: ChildProcess;
  logFile: string;
  /** Resolves once both workers poll. */
  ready: Promise<void>;
  /** Resolves with the exit code or signal when the process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
}

export type WorkerProcessOptions = Omit<WorkerProcessSpec, 'readyFile' | 'stateDir'> & {
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
};

/**
 * A worker process's start-up on an idle machine: node loads the SDK and the workflow bundle, connects, registers
 * search attributes and creates both workers. On a loaded machine it is stretched (LoadScaledDeadline).
 */
const WORKER_START_UP_ON_AN_IDLE_MACHINE_MS = 60_000;

/** Starts `node dist/test/support/worker-process.js <spec>`; its output goes to a log file. */
export function spawnWorkerProcess(options: WorkerProcessOptions): WorkerProcess {
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-worker-'));
  const readyFile = join(dir, 'ready.json');
  const logFile = join(dir, 'worker.log');
  const { env, ...rest } = options;
  const spec: WorkerProcessSpec = { ...rest, stateDir: options.stateDir ?? join(dir, 'state'), readyFile };
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [WORKER_SCRIPT, JSON.stringify(spec)], {
    cwd: REPO,
    env: env ?? process.env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  if (child.pid === undefined) throw new Error('could not start the worker process');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  // The worker's own ready signal: it writes readyFile once both its workers are created.
  const ready = (async () => {
    const deadline = new LoadScaledDeadline(WORKER_START_UP_ON_AN_IDLE_MACHINE_MS);
    while (!existsSync(readyFile)) {
      if (ended) {
        const { code, signal } = await exited;
        throw new Error(
          `worker process ${child.pid} exited (${signal ?? `code ${code}`}) before it wrote ${readyFile}:\n${readFileSync(logFile, 'utf8')}`,
        );
      }
      if (deadline.expired())
        throw new Error(
          `worker process ${child.pid} did not write ${readyFile} (it does once both its workers are created) within ${deadline.describe()}:\n${readFileSync(logFile, 'utf8')}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    pid: child.pid,
    child,
    logFile,
    ready,
    exited,
    kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (!ended) child.kill(signal);
    },
  };
}
