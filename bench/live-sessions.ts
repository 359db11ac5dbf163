/**
 * A scratch Temporal with a worker and goal sessions to point the CLI at: one running (its harness sleeps), one
 * finished, and copies of the finished one's files up to the number of sessions asked for, in one working directory.
 * Used by startup.ts for `loopy status` (running and finished), `loopy list` and `inbox` over many records.
 */
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { buildSessionInput } from '../src/cli/session-input';
import { startGoalSession } from '../src/cli/start-session';
import { configSchema } from '../src/config/schema';
import { sessionsRoot } from '../src/session/paths';
import { readJsonFile } from '../src/session/json-file';
import { sessionStateFileSchema } from '../src/session/schemas';
import { stopSignal } from '../src/workflows/goal-session/messages';
import { startScratchService } from './scratch-service';

const ROUTINES = [
  {
    id: 'turn',
    prompt: 'turn {iteration}',
    harness_options: {},
    emits_goal_check: false,
    when: { default: true as const },
  },
];

export interface LiveSessions {
  /** Where the sessions are: the CLI runs here. */
  cwd: string;
  configFile: string;
  /** The worker's state directory: the CLI finds the worker's live-status socket there. */
  stateDir: string;
  running: string;
  finished: string;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function startLiveSessions(dir: string, sessions: number): Promise<LiveSessions> {
  const taskQueue = 'bench-cli';
  const service = await startScratchService(dir, taskQueue);
  const { configFile, stateDir, close } = service;
  const connection = await Connection.connect({ address: service.address }).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  try {
    const client = new Client({ connection });
    const config = configSchema.parse({ temporal: { taskQueue }, worker: { hostId: 'bench' } });
    const cwd = join(dir, 'work');
    mkdirSync(cwd);
    const input = (goal: string, command: string, maxIterations: number) =>
      buildSessionInput(config, {
        goal,
        cwd,
        harness: 'command',
        harnessCommand: command,
        routines: ROUTINES,
        maxIterations,
      });
    const finished = input('a finished session', 'true', 3);
    await (await startGoalSession(client, finished)).result();
    const running = input('a running session', 'sleep 3600', 1);
    const runningHandle = await startGoalSession(client, running);
    // Running once its turn has started: the state a user asks about.
    const stateFile = join(running.sessionDir, 'state.json');
    while (
      !existsSync(stateFile) ||
      readJsonFile(stateFile, sessionStateFileSchema).status !== 'running' ||
      readJsonFile(stateFile, sessionStateFileSchema).iteration < 1
    )
      await sleep(100);
    // Copies of the finished session, with ids that sort before the real ones. Without its turns' directories:
    // `loopy list`, `sessions list` and `inbox` never open them (strace says so), and they are most of a session's
    // inodes, which this machine's file system is slow to create by the ten thousand (30 s of the set-up, not 5).
    const turnDirs = new Set(['iterations', 'harness_outputs'].map((d) => join(finished.sessionDir, d)));
    for (let i = 0; i < sessions - 2; i++) {
      const id = `20000101_000000_${'0'.repeat(12)}_${i.toString(16).padStart(8, '0')}`;
      cpSync(finished.sessionDir, join(sessionsRoot(cwd), id), {
        recursive: true,
        filter: (source) => !turnDirs.has(source),
      });
    }
    // Stopped before the worker is: a worker shutting down waits its grace time (10 s) for a turn still running.
    const stopRunning = async () => {
      await runningHandle.signal(stopSignal, { reason: 'bench over', by: 'bench' });
      await runningHandle.result();
      await connection.close();
      await close();
    };
    return {
      cwd,
      configFile,
      stateDir,
      running: running.sessionId,
      finished: finished.sessionId,
      close: stopRunning,
    };
  } catch (error) {
    await connection.close();
    await close();
    throw error;
  }
}
