import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { WorkflowNotFoundError, type Client, type Connection } from '@temporalio/client';
import { stringify } from 'yaml';
import type { ActivityDeps } from '../../../src/activities/deps';
import { configSchema, type TheLoopConfig } from '../../../src/config/schema';
import type { WorkItemQueues } from '../../../src/temporal/work-items';
import { eventLogFile, workItemDirs, type WorkItemDirs } from '../../../src/work-item/paths';
import { readJsonl } from '../../../src/session/jsonl';
import { parseWorkItemRef, refSlug, tmuxSessionName } from '../../../src/work-item/ref';
import { readRecord } from '../../../src/work-item/registry';
import {
  workItemEventSchema,
  type RegistryRecord,
  type WorkItemEvent,
  type WorkItemEventType,
} from '../../../src/work-item/schemas';
import { hostQueueName } from '../../../src/workflows/goal-session/host-queue';
import { workItemWorkflowId } from '../../../src/workflows/work-item/ids';
import { runCli, type CliResult } from '../../support/cli';
import { FakeGitHub } from '../../support/fake-github/server';
import { claimWorkItem, startedWorkItem } from '../../support/work-item-claims';
import {
  messagesText,
  QUIET_CLAUDE_ENV,
  realClaudeBin,
  runRealClaude,
  startMockAnthropic,
  type LoggedRequest,
  type MessagesBody,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import {
  startTestWorker,
  testClient,
  testServer,
  uniqueQueue,
  type TestWorker,
} from '../../support/temporal';
import { waitFor } from '../../support/wait';

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
  /** The mock Anthropic API the hosted claude talks to, and the API key env.file gives it. */
  mock: MockAnthropic;
  /**
   * The GitHub API of the config (github.apiUrl) when the test gave none: empty, so the first node's
   * `the-loop item show` gets a quick 404 instead of retrying an unreachable api.github.com for 14 s.
   */
  github: FakeGitHub | null;
  apiKey: string;
  /** Rewrites env.file: claude's lines (the key, the mock's URL, no telemetry) and then `lines`. */
  writeEnvFile(...lines: string[]): void;
  cliEnv: NodeJS.ProcessEnv;
  cli(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
  tmux(...args: string[]): { code: number; stdout: string; stderr: string };
  tmuxName(ref: string): string;
  capture(ref: string): string;
  /** The agent call of the mock whose newest prompt matches, once claude sent it. */
  agentCall(
    text: string | RegExp | ((prompt: string) => boolean),
    timeoutMs?: number,
  ): Promise<LoggedRequest>;
  /** The newest prompt of every agent call so far, in order (a tool result's follow-up call included). */
  prompts(): string[];
  record(ref: string): RegistryRecord | null;
  /** Stops the worker (its hook channel too) until startWorker; the restart of a worker is the two in a row. */
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  restartWorker(): Promise<void>;
  dispose(): Promise<void>;
}

/** The work item's event log (`events/<slug>.jsonl`), only the events of these types, in order. */
export function workItemEvents(
  env: WorkItemTestEnv,
  ref: string,
  ...types: WorkItemEventType[]
): WorkItemEvent[] {
  const slug = env.record(ref)?.slug ?? refSlug(parseWorkItemRef(ref));
  return readJsonl(eventLogFile(env.dirs, slug), workItemEventSchema).filter((e) => types.includes(e.type));
}

/** The event a hosted turn's model call answers: the last `EVT-n` its messages carry ('none' without one). */
export function eventOfCall(body: MessagesBody | null): string {
  return [...messagesText(body).matchAll(/EVT-\d+/g)].at(-1)?.[0] ?? 'none';
}

/** The text of a call's newest user message without claude's own reminders: the prompt that call answers. */
export function newestPrompt(body: MessagesBody | null): string {
  const last = body?.messages?.filter((m) => m.role === 'user').at(-1);
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  const texts = last.content
    .filter((b) => b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>'))
    .map((b) => b.text ?? '');
  return texts.length > 0 ? texts.join('\n') : messagesText({ messages: [last] });
}

/**
 * Whether a prompt claude sent is the plugin's `/the-loop:work-on <item> --phase <phase>`, expanded: claude sends
 * the command's arguments and its text (`# Work on <item>` …) together.
 */
export function isNodeCommand(prompt: string, item: string, phase: string): boolean {
  return (
    prompt.includes(`<command-args>${item} --phase ${phase}</command-args>`) &&
    prompt.includes(`# Work on ${item}`)
  );
}

/**
 * The names claude's env.file lines forward into a pane, besides a test's own. NO_PROXY: the real claude sends even
 * its calls to an http:// base URL through HTTPS_PROXY (a test's dummy proxy would refuse them), so the local mock is
 * exempted, as a user behind a proxy exempts a local gateway.
 */
export const CLAUDE_FORWARDED = ['ANTHROPIC_BASE_URL', 'NO_PROXY', ...Object.keys(QUIET_CLAUDE_ENV)];
const NO_PROXY = '127.0.0.1,localhost';

/**
 * A scratch world: a bare "origin" (git's url.insteadOf maps https://github.com/ to it), a the-loop.yaml on the
 * run's dev server with a private tmux socket, and a worker on its own queue. Its sessions run the REAL interactive
 * claude against a local mock of the Anthropic API (`mock`, or one of its own that answers every prompt with
 * `received: <prompt>`): the API key and the mock's URL only in env.file, claude's onboarding done once in this
 * test's CLAUDE_CONFIG_DIR. `envFileLines` (default: an HTTPS_PROXY) follow claude's lines in env.file, and
 * `passthrough` (default: HTTPS_PROXY) is forwarded besides claude's names. `yaml` is merged over the config file
 * the worker re-reads at each spawn (and the one it started on).
 */
export async function setupWorkItemEnv(
  options: {
    yaml?: Record<string, unknown>;
    deps?: Partial<ActivityDeps>;
    envFileLines?: string[];
    passthrough?: string[];
    mock?: MockAnthropic;
    apiKey?: string;
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
  const claudeConfigDir = join(dir, 'claude-config');
  process.env.CLAUDE_CONFIG_DIR = claudeConfigDir;
  // A user who has been through claude's onboarding once.
  mkdirSync(claudeConfigDir, { recursive: true });
  writeFileSync(
    join(claudeConfigDir, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, autoUpdates: false }),
  );

  const ownMock = options.mock
    ? null
    : await startMockAnthropic({ respond: (call) => ({ text: `received: ${newestPrompt(call.body)}` }) });
  const mock = options.mock ?? (ownMock as MockAnthropic);
  const apiKey = options.apiKey ?? `sk-ant-api03-work-item-test-${randomUUID()}`;
  const claudeLines = [
    `ANTHROPIC_API_KEY=${apiKey}`,
    `ANTHROPIC_BASE_URL=${mock.url}`,
    `NO_PROXY=${NO_PROXY}`,
    ...Object.entries(QUIET_CLAUDE_ENV).map(([k, v]) => `${k}=${v}`),
  ];
  const envFile = join(dir, 'session.env');
  const writeEnvFile = (...lines: string[]) =>
    writeFileSync(envFile, `${[...claudeLines, ...lines].join('\n')}\n`);
  writeEnvFile(...(options.envFileLines ?? ['HTTPS_PROXY=http://proxy-old.invalid:3128']));
  const ownGitHub = options.yaml?.github === undefined ? new FakeGitHub() : null;
  await ownGitHub?.start();
  const socket = `tl-${uniqueQueue('s')}`;
  const taskQueue = uniqueQueue('wi');
  const raw = {
    temporal: { address: testServer().address, taskQueue },
    worker: { hostId: 'testhost' },
    state: { root: join(dir, 'root') },
    harness: { claude: { command: realClaudeBin() } },
    env: {
      file: envFile,
      sessionPassthrough: [...CLAUDE_FORWARDED, ...(options.passthrough ?? ['HTTPS_PROXY'])],
    },
    ...(ownGitHub ? { github: { apiUrl: ownGitHub.url } } : {}),
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
  const matches = (value: string, text: string | RegExp) =>
    typeof text === 'string' ? value.includes(text) : text.test(value);
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
    mock,
    github: ownGitHub,
    apiKey,
    writeEnvFile,
    cliEnv,
    cli: (args, extraEnv) => {
      const started = startedWorkItem(args);
      if (started) claimWorkItem(started, readFileSync(configFile, 'utf8'));
      return runCli(args, { env: { ...cliEnv, ...extraEnv }, cwd: dir });
    },
    tmux,
    tmuxName,
    capture,
    agentCall: (text, timeoutMs = 120_000) =>
      waitFor(
        `the mock to receive ${String(text)}`,
        () =>
          mock.requests.find((r) => {
            if (r.kind !== 'agent') return false;
            const prompt = newestPrompt(r.body);
            return typeof text === 'function' ? text(prompt) : matches(prompt, text);
          }),
        timeoutMs,
      ),
    prompts: () => mock.requests.filter((r) => r.kind === 'agent').map((r) => newestPrompt(r.body)),
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
      await ownMock?.close();
      await ownGitHub?.stop();
    },
  };
  return env;
}

/**
 * A conversation the user had with the real claude in `cwd` (`claude -p --session-id <id>` against the env's mock),
 * as a person's own session before it is registered: its transcript holds `prompt` and the reply.
 */
export async function openClaudeConversation(
  env: WorkItemTestEnv,
  cwd: string,
  id: string,
  prompt: string,
): Promise<void> {
  const run = await runRealClaude([`--session-id=${id}`], {
    prompt,
    cwd,
    env: {
      ...QUIET_CLAUDE_ENV,
      CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR ?? '',
      HOME: env.dir,
      ANTHROPIC_BASE_URL: env.mock.url,
      ANTHROPIC_API_KEY: env.apiKey,
    },
  });
  if (run.code !== 0) throw new Error(`claude -p --session-id=${id} exited ${run.code}: ${run.stderr}`);
}

/** The process in a work item's pane (the harness itself: `env -u … <harness>` execs it): its argv and cwd. */
export function paneProcess(env: WorkItemTestEnv, ref: string): { pid: number; argv: string[]; cwd: string } {
  const pid = Number(
    env.tmux('display-message', '-p', '-t', `=${env.tmuxName(ref)}:`, '#{pane_pid}').stdout.trim(),
  );
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  return { pid, argv, cwd: readlinkSync(`/proc/${pid}/cwd`) };
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

/** setupWorkItemEnv on the test's own `mock` and `key`, with nothing in env.file or forwarded but claude's and `passthrough`. */
export function setupRealClaudeEnv(
  mock: MockAnthropic,
  key: string,
  options: {
    yaml?: Record<string, unknown>;
    deps?: Partial<ActivityDeps>;
    envFileLines?: string[];
    passthrough?: string[];
  } = {},
): Promise<WorkItemTestEnv> {
  return setupWorkItemEnv({
    mock,
    apiKey: key,
    envFileLines: options.envFileLines ?? [],
    passthrough: options.passthrough ?? [],
    ...(options.yaml ? { yaml: options.yaml } : {}),
    ...(options.deps ? { deps: options.deps } : {}),
  });
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
