import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { PaneDeadError, Tmux } from '../../../src/work-item/tmux';

/**
 * The real tmux (3.3a here crashes when a buffer is pasted into a dead pane, ending every session on its socket):
 * a paste goes only into a live pane.
 */
describe('pasting into tmux panes', () => {
  const socket = `tl-paste-${randomBytes(4).toString('hex')}`;
  // the run's tmux socket directory too (hermetic-env.ts), where `run` below finds the same server
  const tmux = new Tmux(socket, {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...(process.env.TMUX_TMPDIR ? { TMUX_TMPDIR: process.env.TMUX_TMPDIR } : {}),
  });
  const run = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

  beforeAll(async () => {
    run('new-session', '-d', '-s', 'alive', 'cat');
    // as a hosted session's window is kept: its pane stays, dead, once its harness has exited
    run('set-option', '-gw', 'remain-on-exit', 'on');
    run('new-session', '-d', '-s', 'exited', 'true');
    for (let i = 0; i < 200 && !(await tmux.pane('exited'))?.dead; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(() => {
    try {
      run('kill-server');
    } catch {
      // already gone
    }
  });

  it('refuses a dead pane, and the server and its other sessions live on', async () => {
    expect((await tmux.pane('exited'))?.dead).toBe(true);
    await expect(tmux.paste('exited', 'hello', 'the-loop-test')).rejects.toBeInstanceOf(PaneDeadError);
    await expect(tmux.submit('exited', 'the-loop-test')).rejects.toBeInstanceOf(PaneDeadError);
    expect(await tmux.serverRunning()).toBe(true);
    expect(await tmux.hasSession('alive')).toBe(true);
  });

  it('pastes into a live pane', async () => {
    await tmux.paste('alive', 'hello from the test', 'the-loop-test');
    let screen = '';
    for (let i = 0; i < 200 && !screen.includes('hello from the test'); i++) {
      screen = await tmux.capture('alive');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(screen).toContain('hello from the test');
  });
});
