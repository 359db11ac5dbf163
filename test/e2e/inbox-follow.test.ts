import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { configSchema } from '../../src/config/schema';
import { workItemDirs } from '../../src/work-item/paths';
import { writeRecord } from '../../src/work-item/registry';
import type { Waiting } from '../../src/work-item/schemas';
import { BIN } from '../support/cli';
import { sessionRecord } from '../support/registry-record';
import { waitFor } from '../support/wait';

// Each case starts the CLI twice over and waits on its once-a-second reads: generous on a loaded machine.
jest.setTimeout(10 * 60_000);
const WAIT_MS = 120_000;

/** A registry of its own (the inbox reads files alone: no Temporal), and a way to set a work item's wait. */
function registry(): { env: NodeJS.ProcessEnv; wait: (ref: string, waiting: Waiting | null) => void } {
  const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-inbox-'));
  const configFile = join(stateDir, 'the-loop.yaml');
  writeFileSync(configFile, '{}\n');
  const dirs = workItemDirs(configSchema.parse({}), stateDir);
  mkdirSync(dirs.registryDir, { recursive: true });
  return {
    env: { THE_LOOP_STATE_DIR: stateDir, THE_LOOP_CONFIG: configFile },
    wait: (ref, waiting) => writeRecord(dirs, { ...sessionRecord(ref, [], null), waiting }),
  };
}

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** `the-loop inbox --follow [args]` running, with what it printed so far. */
function follow(env: NodeJS.ProcessEnv, args: string[] = []) {
  const child = execa(process.execPath, [BIN, 'inbox', '--follow', ...args], {
    env,
    cwd: mkdtempSync(join(tmpdir(), 'inbox-cwd-')),
    reject: false,
    timeout: 8 * 60_000,
  });
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const lines = () => printed.split('\n').filter((line) => line !== '');
  return { child, lines };
}

describe('the-loop inbox --follow, as a process', () => {
  it('prints the waits, then each wait that begins and each that is answered, until Ctrl-C (exit 0)', async () => {
    const { env, wait } = registry();
    wait('github:octo/repo#1', { reason: 'gate', detail: 'approve the spec?', since: ago(42) });
    wait('github:octo/repo#2', { reason: 'permission', detail: 'Bash: npm publish', since: ago(7) });
    const inbox = follow(env);
    const table = await waitFor(
      'the table',
      () => (inbox.lines().length >= 3 ? inbox.lines() : null),
      WAIT_MS,
    );
    expect(table[0]).toMatch(/^SINCE\s+WAITED\s+REASON\s+SESSION\s+COST\s+ASKED$/);
    expect(table[1]).toMatch(/gate\s+github:octo\/repo#1 .*approve the spec\?/);
    expect(table[2]).toMatch(/permission\s+github:octo\/repo#2 .*Bash: npm publish/);

    wait('github:octo/repo#3', { reason: 'blocked', detail: 'the tmux server is gone', since: ago(0) });
    const began = await waitFor(
      'the new wait',
      () => inbox.lines().find((line) => line.startsWith('waiting: ')),
      WAIT_MS,
    );
    expect(began).toMatch(/blocked\s+github:octo\/repo#3 .*the tmux server is gone/);
    // it says how to answer it
    expect(began).toContain('the-loop sessions start --work-item github:octo/repo#3');

    wait('github:octo/repo#2', null);
    const answered = await waitFor(
      'the answered wait',
      () => inbox.lines().find((line) => line.startsWith('answered: ')),
      WAIT_MS,
    );
    // after 7m, or a minute more on a machine slow enough to see it late
    expect(answered).toMatch(/^answered: github:octo\/repo#2 no longer waits \(permission, after [78]m\)$/);

    inbox.child.kill('SIGINT');
    expect((await inbox.child).exitCode).toBe(0);
    // one line each: nothing printed twice
    expect(inbox.lines()).toHaveLength(5);
  });

  it('with --format json: the entries, then one object a line, {"began": …} or {"ended": …}', async () => {
    const { env, wait } = registry();
    wait('github:octo/repo#1', { reason: 'question', detail: 'which region?', since: ago(3) });
    const inbox = follow(env, ['--format', 'json']);
    const first = await waitFor('the entries', () => inbox.lines()[0], WAIT_MS);
    expect(JSON.parse(first)).toEqual([
      expect.objectContaining({ session: 'github:octo/repo#1', reason: 'question', detail: 'which region?' }),
    ]);
    wait('github:octo/repo#2', { reason: 'gate', detail: 'approve?', since: ago(0) });
    const began = await waitFor('the began line', () => inbox.lines()[1], WAIT_MS);
    expect(JSON.parse(began)).toEqual({ began: expect.objectContaining({ session: 'github:octo/repo#2' }) });
    wait('github:octo/repo#1', null);
    const ended = await waitFor('the ended line', () => inbox.lines()[2], WAIT_MS);
    expect(JSON.parse(ended)).toEqual({ ended: expect.objectContaining({ session: 'github:octo/repo#1' }) });
    inbox.child.kill('SIGTERM');
    expect((await inbox.child).exitCode).toBe(0);
  });
});
