import { execa } from 'execa';

export interface GitOptions {
  cwd?: string;
  /** The whole environment git runs with: explicit, so that a caller's (or a test's) git config reaches it. */
  env?: NodeJS.ProcessEnv;
  /** Called every few seconds while git runs: a clone can take minutes, and an activity must heartbeat. */
  onTick?: () => void;
}

export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

/** A clone of a large repository over a slow link still finishes; a hung one does not hold a slot forever. */
const GIT_TIMEOUT_MS = 300_000;
const TICK_MS = 5_000;

interface GitRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function run(args: readonly string[], options: GitOptions): Promise<GitRun> {
  const ticker = options.onTick ? setInterval(options.onTick, TICK_MS) : null;
  try {
    const result = await execa('git', args, {
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.env ? { env: options.env, extendEnv: false } : {}),
      stdin: 'ignore',
      reject: false,
      timeout: GIT_TIMEOUT_MS,
    });
    if (result.failed && result.exitCode === undefined) {
      const reason = result.timedOut ? `timed out after ${GIT_TIMEOUT_MS / 1000} s` : result.shortMessage;
      throw new GitError(`git ${args[0] ?? ''} failed: ${reason}`, null);
    }
    return { code: result.exitCode ?? null, stdout: result.stdout, stderr: result.stderr };
  } finally {
    if (ticker) clearInterval(ticker);
  }
}

/** Runs git; its stdout, or a GitError naming the command and git's own message. */
export async function git(args: readonly string[], options: GitOptions = {}): Promise<string> {
  const result = await run(args, options);
  if (result.code !== 0) {
    throw new GitError(
      `git ${args.join(' ')} failed: ${result.stderr.trim() || `exit ${result.code ?? 'unknown'}`}`,
      result.code,
    );
  }
  return result.stdout;
}

/** Whether git exits 0 (a query such as `rev-parse --verify`); a missing git is still an error. */
export async function gitSucceeds(args: readonly string[], options: GitOptions = {}): Promise<boolean> {
  return (await run(args, options)).code === 0;
}

/** The branch HEAD is on; null when HEAD is detached or `cwd` is no git checkout. */
export async function currentBranch(options: GitOptions = {}): Promise<string | null> {
  const result = await run(['symbolic-ref', '--quiet', '--short', 'HEAD'], options).catch(() => null);
  return result && result.code === 0 ? result.stdout.trim() : null;
}

/** The URL of the `origin` remote; null when there is none. */
export async function originUrl(options: GitOptions = {}): Promise<string | null> {
  const result = await run(['remote', 'get-url', 'origin'], options).catch(() => null);
  return result && result.code === 0 ? result.stdout.trim() : null;
}
