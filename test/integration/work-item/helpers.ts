import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WorkflowNotFoundError, type Client, type Connection } from '@temporalio/client';
import { stringify } from 'yaml';
import type { ActivityDeps } from '../../../src/activities/deps';
import { configSchema, type TheLoopConfig } from '../../../src/config/schema';
import type { WorkItemQueues } from '../../../src/temporal/work-items';
import { workItemDirs, type WorkItemDirs } from '../../../src/work-item/paths';
import { parseWorkItemRef, refSlug, tmuxSessionName } from '../../../src/work-item/ref';
import { readRecord } from '../../../src/work-item/registry';
import type { RegistryRecord } from '../../../src/work-item/schemas';
import { hostQueueName } from '../../../src/worker/queues';
import { workItemWorkflowId } from '../../../src/workflows/work-item-ids';
import { runCli, type CliResult } from '../../support/cli';
import { QUIET_CLAUDE_ENV, realClaudeBin } from '../../support/mock-anthropic';
import {
  startTestWorker,
  testClient,
  testServer,
  uniqueQueue,
  type TestWorker,
} from '../../support/temporal';

export const FAKE_HARNESS = resolve(__dirname, '..', '..', 'support', 'bin', 'fake-claude-interactive');

/** Fails (never skips) when a tool the acceptance tests need is missing, naming the fix. */
export function requireTools(): void {
  for (const [tool, fix] of [
    ['tmux', 'install tmux (apt-get install tmux)'],
    ['git', 'install git (apt-get install git)'],
  ] as const) {
    const probe = spawnSync(tool, ['-V'], { encoding: 'utf8' });
    const probe2 = probe.error ? spawnSync(tool, ['--version']) : probe;
    if (probe2.error) throw new Error(`the work-item tests need ${tool}: ${fix}`);
  }
  if (!existsDist()) throw new Error('the CLI is not built: run `npx tsc -p tsconfig.build.json` first');
}

function existsDist(): boolean {
  return existsSync(
    resolve(__dirname, '..', '..', '..', 'dist', 'src', 'cli', 'commands', 'sessions', 'index.js'),
  );
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
  });
}

export interface WorkItemTestEnv {
  dir: string;
  stateDir: string;
  configFile: string;
  config: TheLoopConfig;
  dirs: WorkItemDirs;
  socket: string;
  taskQueue: string;
  queues: WorkItemQueues;
  worker: TestWorker;
  client: Client;
  connection: Connection;
  /** The bare repository standing in for https://github.com/octo/repo. */
  origin: string;
  envFile: string;
  cliEnv: NodeJS.ProcessEnv;
  cli(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
  tmux(...args: string[]): { code: number; stdout: string; stderr: string };
  tmuxName(ref: string): string;
  capture(ref: string): string;
  waitForPane(ref: string, text: string | RegExp, timeoutMs?: number): Promise<string>;
  record(ref: string): RegistryRecord | null;
  /** Stops the worker (its hook channel too) until startWorker; the restart of a worker is the two in a row. */
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  restartWorker(): Promise<void>;
  dispose(): Promise<void>;
}

export async function waitFor<T>(
  what: string,
  fn: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A scratch world: a bare "origin" (git's url.insteadOf maps https://github.com/ to it), a the-loop.yaml on the
 * run's dev server with a private tmux socket and the fake interactive harness, and a worker on its own queue.
 */
export async function setupWorkItemEnv(
  options: {
    yaml?: Record<string, unknown>;
    deps?: Partial<ActivityDeps>;
    envFileText?: string;
  } = {},
): Promise<WorkItemTestEnv> {
  requireTools();
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-wi-'));
  const stateDir = join(dir, 'state');
  mkdirSync(stateDir);
  // origin: a bare repo with one commit on main
  const originRoot = join(dir, 'origin');
  const origin = join(originRoot, 'octo', 'repo.git');
  mkdirSync(origin, { recursive: true });
  git(origin, 'init', '--quiet', '--bare', '-b', 'main');
  const seed = join(dir, 'seed');
  git(dir, 'clone', '--quiet', origin, seed);
  git(seed, 'config', 'user.email', 't@example.com');
  git(seed, 'config', 'user.name', 'T');
  git(seed, 'checkout', '--quiet', '-b', 'main');
  writeFileSync(join(seed, 'README.md'), '# repo\n');
  git(seed, 'add', 'README.md');
  git(seed, 'commit', '--quiet', '-m', 'init');
  git(seed, 'push', '--quiet', 'origin', 'main');
  const gitConfig = join(dir, 'gitconfig');
  writeFileSync(
    gitConfig,
    `[url "${originRoot}/"]\n\tinsteadOf = https://github.com/\n[user]\n\temail = t@example.com\n\tname = T\n[init]\n\tdefaultBranch = main\n`,
  );
  process.env.GIT_CONFIG_GLOBAL = gitConfig;
  process.env.CLAUDE_CONFIG_DIR = join(dir, 'claude-config');

  const envFile = join(dir, 'session.env');
  writeFileSync(envFile, options.envFileText ?? 'HTTPS_PROXY=http://proxy-old.invalid:3128\n');
  const socket = `tl-${uniqueQueue('s')}`;
  const taskQueue = uniqueQueue('wi');
  const raw = {
    temporal: { address: testServer().address, taskQueue },
    worker: { hostId: 'testhost' },
    state: { root: join(dir, 'root') },
    harness: { claude: { command: FAKE_HARNESS } },
    env: { file: envFile, sessionPassthrough: ['HTTPS_PROXY'] },
    ...options.yaml,
    // routing settings of the test beside its private tmux socket
    routing: { tmux: { socket }, ...(options.yaml?.routing as Record<string, unknown> | undefined) },
  };
  const configFile = join(dir, 'the-loop.yaml');
  writeFileSync(configFile, stringify(raw));
  const config = configSchema.parse(raw);
  const worker = await startTestWorker({
    taskQueue,
    config,
    hostId: 'testhost',
    deps: { stateDir, configPath: configFile, ...options.deps },
  });
  const { client, connection } = await testClient();
  const cliEnv: NodeJS.ProcessEnv = {
    THE_LOOP_CONFIG: configFile,
    THE_LOOP_STATE_DIR: stateDir,
    TEMPORAL_ADDRESS: '',
    GIT_CONFIG_GLOBAL: gitConfig,
    GH_TOKEN: '',
    GITHUB_TOKEN: '',
  };
  const tmux = (...args: string[]) => {
    const r = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
    return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };
  const tmuxName = (ref: string) => tmuxSessionName(parseWorkItemRef(ref));
  const capture = (ref: string) =>
    tmux('capture-pane', '-p', '-J', '-S', '-', '-t', `=${tmuxName(ref)}:`).stdout;
  const dirs = workItemDirs(config, stateDir);
  const env: WorkItemTestEnv = {
    dir,
    stateDir,
    configFile,
    config,
    dirs,
    socket,
    taskQueue,
    queues: { taskQueue, hostQueue: hostQueueName(taskQueue, 'testhost') },
    worker,
    client,
    connection,
    origin,
    envFile,
    cliEnv,
    cli: (args, extraEnv) => runCli(args, { env: { ...cliEnv, ...extraEnv }, cwd: dir }),
    tmux,
    tmuxName,
    capture,
    async waitForPane(ref, text, timeoutMs = 60_000) {
      return waitFor(
        `${String(text)} in the pane of ${ref}`,
        () => {
          const pane = capture(ref);
          return (typeof text === 'string' ? pane.includes(text) : text.test(pane)) ? pane : null;
        },
        timeoutMs,
      );
    },
    record: (ref) => readRecord(dirs, refSlug(parseWorkItemRef(ref))),
    stopWorker: () => env.worker.shutdown(),
    async startWorker() {
      env.worker = await startTestWorker({
        taskQueue,
        config,
        hostId: 'testhost',
        deps: { stateDir, configPath: configFile, ...options.deps },
      });
    },
    async restartWorker() {
      await env.stopWorker();
      await env.startWorker();
    },
    async dispose() {
      tmux('kill-server');
      await env.worker.shutdown();
      await connection.close();
    },
  };
  return env;
}

/**
 * A claude conversation that exists in `cwd`: its transcript under $CLAUDE_CONFIG_DIR holds a message, as the real
 * CLI leaves it (and the interactive fake too, once it receives a line). Only such a conversation is resumed.
 */
export function writeClaudeTranscript(cwd: string, id: string): string {
  const configDir = process.env.CLAUDE_CONFIG_DIR ?? '';
  const dir = join(configDir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${id}.jsonl`);
  writeFileSync(file, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'earlier' } })}\n`);
  return file;
}

/** Every process's argv on this machine, for proving that no value reached one. */
export function allCommandLines(): string[] {
  const lines: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      lines.push(
        readFileSync(join('/proc', pid, 'cmdline'), 'utf8')
          .split('\0')
          .join(' '),
      );
    } catch {
      // exited meanwhile
    }
  }
  return lines;
}

export function paneEnvironment(
  env: WorkItemTestEnv,
  ref: string,
): { pid: number; vars: Map<string, string> } {
  const out = env.tmux('display-message', '-p', '-t', `=${env.tmuxName(ref)}:`, '#{pane_pid}').stdout.trim();
  const pid = Number(out);
  const vars = new Map<string, string>();
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) vars.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return { pid, vars };
}

/** A stable picture of a directory tree (paths and contents), to prove a dry run changed nothing. */
export function treeSnapshot(root: string): Record<string, string> {
  const snapshot: Record<string, string> = {};
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        snapshot[`${path}/`] = '';
        walk(path);
      } else {
        try {
          snapshot[path] = readFileSync(path, 'utf8');
        } catch {
          snapshot[path] = '?';
        }
      }
    }
  };
  walk(root);
  return snapshot;
}

/**
 * setupWorkItemEnv whose sessions run the REAL claude against `mock`: the API key and base URL only in env.file,
 * claude's onboarding done once in this test's CLAUDE_CONFIG_DIR. `yaml` is merged into the config file the
 * worker re-reads at each spawn (and the one it started on).
 */
export async function setupRealClaudeEnv(
  mock: { url: string },
  key: string,
  options: { yaml?: Record<string, unknown>; deps?: Partial<ActivityDeps>; envFileLines?: string[] } = {},
): Promise<WorkItemTestEnv> {
  const envFileText = [
    `ANTHROPIC_API_KEY=${key}`,
    ...(options.envFileLines ?? []),
    `ANTHROPIC_BASE_URL=${mock.url}`,
    ...Object.entries(QUIET_CLAUDE_ENV).map(([k, v]) => `${k}=${v}`),
  ].join('\n');
  const env = await setupWorkItemEnv({
    envFileText: `${envFileText}\n`,
    ...(options.yaml ? { yaml: options.yaml } : {}),
    ...(options.deps ? { deps: options.deps } : {}),
  });
  writeFileSync(
    env.configFile,
    stringify({
      ...options.yaml,
      temporal: { address: env.config.temporal.address, taskQueue: env.taskQueue },
      worker: { hostId: 'testhost' },
      state: { root: env.dirs.stateRoot },
      routing: {
        tmux: { socket: env.socket },
        ...(options.yaml?.routing as Record<string, unknown> | undefined),
      },
      harness: { claude: { command: realClaudeBin() } },
      env: {
        file: env.envFile,
        sessionPassthrough: ['ANTHROPIC_BASE_URL', ...Object.keys(QUIET_CLAUDE_ENV)],
      },
    }),
  );
  const configDir = process.env.CLAUDE_CONFIG_DIR ?? '';
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, autoUpdates: false }),
  );
  return env;
}

/** The Temporal status of a work item's workflow (RUNNING, COMPLETED, …), or null when it never ran. */
export async function workflowStatus(client: Client, workItem: string): Promise<string | null> {
  try {
    return (await client.workflow.getHandle(workItemWorkflowId(workItem)).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

/** The spec node's artifact in the work item's checkout, written as the spec turn's Write would. */
export function writeSpecArtifact(env: WorkItemTestEnv, ref: string, text = '# the spec\n'): void {
  const checkout = env.record(ref)?.checkout;
  if (!checkout) throw new Error(`no checkout recorded for ${ref}`);
  const dir = join(checkout.path, 'docs', 'specs', String(parseWorkItemRef(ref).number));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'spec.md'), text);
}
