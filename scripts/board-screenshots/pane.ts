// A real tmux pane showing a made-up screen, on a tmux server of the screenshots' own (TMUX_TMPDIR in their
// temporary directory): the board's session page reads it as it reads any session's pane.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';

/** tmux's environment: its own socket directory, UTF-8 (the screen has box drawing), and not inside a tmux. */
export function tmuxEnv(tmuxDir: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', TMUX_TMPDIR: tmuxDir, LANG: 'C.UTF-8' };
}

export interface PaneServer {
  /** Starts `session`, printing `screen` and then idling; the pane is exactly as tall as the screen. */
  start(session: string, screen: string): Promise<void>;
  /** Ends the server and its panes; harmless before start. */
  stop(): Promise<void>;
}

/**
 * The server on `socket`. Made before anything is started, so that its stop can be registered first: tmux's server
 * leaves its client and outlives this process unless it is told to end.
 */
export function paneServer(tmuxDir: string, socket: string): PaneServer {
  const env = tmuxEnv(tmuxDir);
  const tmux = (args: string[]) => execa('tmux', ['-u', '-L', socket, ...args], { env, extendEnv: false });
  let starting: Promise<unknown> = Promise.resolve();
  return {
    async start(session, screen) {
      const file = join(tmuxDir, `${session}.txt`);
      writeFileSync(file, screen);
      const lines = screen.split('\n');
      const width = Math.max(...lines.map((line) => [...line].length));
      // no newline after the last line: the cursor stays on it, and the pane needs no empty line below it
      starting = tmux([
        'new-session',
        '-d',
        '-s',
        session,
        '-x',
        String(width + 2),
        '-y',
        String(lines.length),
        `cat '${file}'; exec sleep 86400`,
      ]);
      await starting;
    },
    async stop() {
      // a stop while the server starts (a signal) waits for it: a kill sent before it listens would miss it
      await starting.catch(() => undefined);
      await tmux(['kill-server']).catch(() => undefined);
    },
  };
}
