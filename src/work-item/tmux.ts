import { execa } from 'execa';

/** Long enough for a TUI to take an Esc alone, not as the first byte of a key's escape sequence. */
const KEYS_APART_MS = 500;

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

/** A paste refused because the pane's process has exited. */
export class PaneDeadError extends TmuxError {
  constructor(readonly pane: string) {
    super(`the harness in ${pane} has exited: nothing was pasted`, { code: 1, stdout: '', stderr: '' });
    this.name = 'PaneDeadError';
  }
}

/** What the server answers, instead of pasting, when the pane is dead. */
const DEAD = 'pane-dead';

/** One word of a tmux command string: names here are ours (no quotes in them), quoted against spaces. */
const quoted = (word: string) => `'${word}'`;

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

  async run(args: string[], input?: string, clientPath?: string): Promise<TmuxResult> {
    const result = await execa(this.binary, ['-L', this.socket, ...args], {
      env: clientPath === undefined ? this.env : { ...this.env, PATH: clientPath },
      extendEnv: false,
      input: input ?? '',
      reject: false,
      timeout: 15_000,
    });
    if (result.failed && result.exitCode === undefined) {
      throw new TmuxError(
        result.code === 'ENOENT'
          ? `tmux is not installed (or not on PATH): install tmux to host work-item sessions`
          : `tmux failed: ${result.shortMessage}`,
        { code: -1, stdout: '', stderr: result.shortMessage ?? '' },
      );
    }
    return { code: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
  }

  async check(args: string[], input?: string, clientPath?: string): Promise<string> {
    const result = await this.run(args, input, clientPath);
    if (result.code !== 0) {
      throw new TmuxError(
        `tmux ${args[0] ?? ''} failed: ${result.stderr.trim() || `exit ${result.code}`}`,
        result,
      );
    }
    return result.stdout;
  }

  async hasSession(name: string): Promise<boolean> {
    return (await this.run(['has-session', '-t', `=${name}`])).code === 0;
  }

  /** Is a tmux server answering on this socket at all? */
  async serverRunning(): Promise<boolean> {
    return (await this.run(['list-sessions', '-F', '#{session_name}'])).code === 0;
  }

  async pane(name: string): Promise<PaneState | null> {
    const result = await this.run(['display-message', '-p', '-t', `=${name}:`, '#{pane_pid} #{pane_dead}']);
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
  async newSession(name: string, cwd: string): Promise<void> {
    await this.check(['new-session', '-d', '-s', name, '-c', cwd, '-x', '200', '-y', '50', '--', 'cat']);
    try {
      await this.check(['set-option', '-w', '-t', `=${name}:`, 'remain-on-exit', 'on']);
    } catch (error) {
      await this.killSession(name);
      throw error;
    }
  }

  /** respawn-pane -k: the harness replaces whatever runs in the pane; the session keeps its identity. */
  async respawn(
    name: string,
    cwd: string,
    env: { name: string; value: string }[],
    argv: string[],
  ): Promise<void> {
    const args = ['respawn-pane', '-k', '-t', `=${name}:`, '-c', cwd];
    for (const { name: key, value } of env) args.push('-e', `${key}=${value}`);
    // tmux gives the new process the PATH of the client that asked for it, whatever -e says: ask with that PATH
    const path = env.find((e) => e.name === 'PATH')?.value;
    await this.check([...args, '--', ...argv], undefined, path);
  }

  /**
   * Delivers text by pasting it (bracketed when the application asked for it); the submit is a second,
   * unbracketed paste of a newline, which tmux turns into Enter. No send-keys, so no client is consulted.
   */
  async paste(name: string, text: string, bufferName: string): Promise<void> {
    await this.pasteText(name, text, bufferName);
    await this.submit(name, bufferName);
  }

  /** The paste without its submit: the text waits in the application's input. */
  async pasteText(name: string, text: string, bufferName: string): Promise<void> {
    await this.check(['load-buffer', '-b', bufferName, '-'], text);
    await this.pasteIntoLivePane(name, bufferName, ['-p']);
  }

  /** The Enter that submits what was pasted, itself pasted (not typed), so a read-only observer cannot block it. */
  async submit(name: string, bufferName: string): Promise<void> {
    await this.check(['load-buffer', '-b', `${bufferName}-enter`, '-'], '\n');
    await this.pasteIntoLivePane(name, `${bufferName}-enter`, []);
  }

  /**
   * Interrupts what the TUI is doing (Esc), then empties its input box (Ctrl-U), where claude puts back a prompt
   * interrupted before its reply began. Pasted, like the submit; apart, so that the TUI reads a bare Esc and not the
   * start of an escape sequence.
   */
  async interrupt(name: string, bufferName: string): Promise<void> {
    for (const [key, bytes] of [
      ['esc', '\x1b'],
      ['clear', '\x15'],
    ] as const) {
      await this.check(['load-buffer', '-b', `${bufferName}-${key}`, '-'], bytes);
      await this.pasteIntoLivePane(name, `${bufferName}-${key}`, []);
      if (key === 'esc') await new Promise((resolve) => setTimeout(resolve, KEYS_APART_MS));
    }
  }

  /**
   * tmux 3.3a crashes when a buffer is pasted into a dead pane (a harness that exited, kept by remain-on-exit), and
   * takes every session on the socket with it. The server checks the pane and pastes in one command, so the pane
   * cannot die in between; a dead pane is a PaneDeadError and nothing is pasted.
   */
  private async pasteIntoLivePane(name: string, bufferName: string, flags: string[]): Promise<void> {
    const target = `=${name}:`;
    const paste = ['paste-buffer', '-d', ...flags, '-b', bufferName, '-t', target].map(quoted).join(' ');
    const out = await this.check([
      'if-shell',
      '-F',
      '-t',
      target,
      '#{pane_dead}',
      `display-message -p ${DEAD}`,
      paste,
    ]);
    if (out.trim() === DEAD) throw new PaneDeadError(name);
  }

  capture(name: string): Promise<string> {
    return this.check(['capture-pane', '-p', '-J', '-S', '-', '-t', `=${name}:`]);
  }

  /** The pane's visible screen only, as a person looking at it sees it (the board's read-only view). */
  screen(name: string): Promise<string> {
    return this.check(['capture-pane', '-p', '-t', `=${name}:`]);
  }

  async clearHistory(name: string): Promise<void> {
    await this.run(['clear-history', '-t', `=${name}:`]);
  }

  async killSession(name: string): Promise<boolean> {
    return (await this.run(['kill-session', '-t', `=${name}`])).code === 0;
  }

  /** A person's terminal joins the session (read-only: no keyboard); resolves with tmux's exit code. */
  async attach(name: string, readOnly: boolean): Promise<number | null> {
    const args = ['-L', this.socket, 'attach-session', ...(readOnly ? ['-r'] : []), '-t', `=${name}`];
    const result = await execa(this.binary, args, {
      env: this.env,
      extendEnv: false,
      stdio: 'inherit',
      reject: false,
    });
    if (result.failed && result.exitCode === undefined)
      throw new TmuxError(`tmux failed: ${result.shortMessage}`, {
        code: -1,
        stdout: '',
        stderr: result.shortMessage ?? '',
      });
    return result.exitCode ?? null;
  }
}
