import { spawnSync } from 'node:child_process';

export interface TmuxResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class TmuxError extends Error {
  constructor(
    message: string,
    readonly result: TmuxResult,
  ) {
    super(message);
    this.name = 'TmuxError';
  }
}

export interface PaneState {
  pid: number;
  dead: boolean;
}

/**
 * tmux on a private socket (`-L`), always with exact targets (`=name`), run with the kept-out names removed
 * from its environment so that a server a spawn starts holds none of them.
 */
export class Tmux {
  constructor(
    readonly socket: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly binary = 'tmux',
  ) {}

  run(args: string[], input?: string): TmuxResult {
    const result = spawnSync(this.binary, ['-L', this.socket, ...args], {
      env: this.env,
      input: input ?? '',
      encoding: 'utf8',
      timeout: 15_000,
    });
    if (result.error) {
      const code = (result.error as NodeJS.ErrnoException).code;
      throw new TmuxError(
        code === 'ENOENT'
          ? `tmux is not installed (or not on PATH): install tmux to host work-item sessions`
          : `tmux failed: ${result.error.message}`,
        { code: -1, stdout: '', stderr: String(result.error) },
      );
    }
    return { code: result.status ?? -1, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
  }

  check(args: string[], input?: string): string {
    const result = this.run(args, input);
    if (result.code !== 0) {
      throw new TmuxError(
        `tmux ${args[0] ?? ''} failed: ${result.stderr.trim() || `exit ${result.code}`}`,
        result,
      );
    }
    return result.stdout;
  }

  hasSession(name: string): boolean {
    return this.run(['has-session', '-t', `=${name}`]).code === 0;
  }

  /** Is a tmux server answering on this socket at all? */
  serverRunning(): boolean {
    return this.run(['list-sessions', '-F', '#{session_name}']).code === 0;
  }

  pane(name: string): PaneState | null {
    const result = this.run(['display-message', '-p', '-t', `=${name}:`, '#{pane_pid} #{pane_dead}']);
    if (result.code !== 0) return null;
    const [pid, dead] = result.stdout.trim().split(' ');
    const n = Number(pid);
    if (!Number.isInteger(n) || n <= 0) return null;
    return { pid: n, dead: dead === '1' };
  }

  /**
   * A detached session whose pane first runs a placeholder; the harness then replaces it with respawn-pane, so
   * that no forwarded value is ever in the argv of the call that may start the tmux server (it keeps that
   * argv as its process name for life).
   */
  newSession(name: string, cwd: string): void {
    this.check(['new-session', '-d', '-s', name, '-c', cwd, '-x', '200', '-y', '50', '--', 'cat']);
    try {
      this.check(['set-option', '-w', '-t', `=${name}:`, 'remain-on-exit', 'on']);
    } catch (error) {
      this.killSession(name);
      throw error;
    }
  }

  /** respawn-pane -k: the harness replaces whatever runs in the pane; the session keeps its identity. */
  respawn(name: string, cwd: string, env: { name: string; value: string }[], argv: string[]): void {
    const args = ['respawn-pane', '-k', '-t', `=${name}:`, '-c', cwd];
    for (const { name: key, value } of env) args.push('-e', `${key}=${value}`);
    this.check([...args, '--', ...argv]);
  }

  /**
   * Delivers text by pasting it (bracketed when the application asked for it); the submit is a second,
   * unbracketed paste of a newline, which tmux turns into Enter. No send-keys, so no client is consulted.
   */
  paste(name: string, text: string, bufferName: string): void {
    this.check(['load-buffer', '-b', bufferName, '-'], text);
    this.check(['paste-buffer', '-d', '-p', '-b', bufferName, '-t', `=${name}:`]);
    this.check(['load-buffer', '-b', `${bufferName}-enter`, '-'], '\n');
    this.check(['paste-buffer', '-d', '-b', `${bufferName}-enter`, '-t', `=${name}:`]);
  }

  capture(name: string): string {
    return this.check(['capture-pane', '-p', '-J', '-S', '-', '-t', `=${name}:`]);
  }

  clearHistory(name: string): void {
    this.run(['clear-history', '-t', `=${name}:`]);
  }

  killSession(name: string): boolean {
    return this.run(['kill-session', '-t', `=${name}`]).code === 0;
  }
}
