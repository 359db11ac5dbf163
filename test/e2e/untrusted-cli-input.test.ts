import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';

/**
 * What a user hands the CLI that is not what it seems: a device, a FIFO, a directory, a /proc file or an oversize
 * file where a file's text is expected, control characters in an id, a help topic that does not exist. Each is
 * refused promptly (a hang fails runCli at its timeout) with exit 2 and one line on stderr that holds no raw
 * control character, and nothing is created.
 */
interface Case {
  name: string;
  args: string[];
  says: string;
  as?: 'the-loop' | 'loopy';
  input?: string;
}

const RUN = ['run', '--harness', 'command', '--harness-command', 'true'];
const PR = ['pr', 'create', '--work-item', 'github:octo/repo#1', '--title', 't'];
// Anything but a newline (the one ending the line): C0, DEL and C1.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\x00-\x1f\x7f-\x9f]/;

const cases: Case[] = [
  {
    name: '--config a device',
    args: ['--config', '/dev/zero', 'status'],
    says: '--config /dev/zero: a character device',
  },
  { name: '--config a FIFO', args: ['--config', 'fifo', 'status'], says: 'fifo: a FIFO, not a regular file' },
  {
    name: '--config a directory',
    args: ['--config', 'dir', 'status'],
    says: 'dir: a directory, not a regular file',
  },
  { name: '--config oversize', args: ['--config', 'big.yaml', 'status'], says: 'the limit is 1048576' },
  {
    name: '--goal-file a device',
    args: [...RUN, '--goal-file', '/dev/zero'],
    says: '--goal-file /dev/zero: a character device',
    as: 'loopy',
  },
  {
    name: '--goal-file /proc/self/environ',
    args: [...RUN, '--goal-file', '/proc/self/environ'],
    says: '--goal-file /proc/self/environ: its size says 0 bytes but it holds more',
    as: 'loopy',
  },
  {
    name: '--goal-file a FIFO',
    args: [...RUN, '--goal-file', 'fifo'],
    says: '--goal-file fifo: a FIFO',
    as: 'loopy',
  },
  {
    name: '--workflows a device',
    args: [...RUN, '--goal', 'g', '--workflows', '/dev/zero'],
    says: '--workflows /dev/zero: a character device',
    as: 'loopy',
  },
  {
    name: '--body-file a device',
    args: [...PR, '--body-file', '/dev/zero'],
    says: '--body-file /dev/zero: a character device',
  },
  {
    name: '--body-file a directory',
    args: [...PR, '--body-file', 'dir'],
    says: '--body-file dir: a directory',
  },
  { name: '--body-file oversize', args: [...PR, '--body-file', 'big.yaml'], says: 'the limit is 262144' },
  {
    name: '--body-file - oversize',
    args: [...PR, '--body-file', '-'],
    says: 'stdin holds more than 262144 bytes',
    input: 'x'.repeat(300 * 1024),
  },
  {
    name: 'a session id with a newline and an ESC',
    args: ['status', 'a\n\x1b[31mred'],
    says: "'a\\n\\x1b[31mred' is not a session id",
    as: 'loopy',
  },
  {
    name: 'events of a session id with control characters',
    args: ['events', 'x\r\x9b2J'],
    says: "'x\\r\\x9b2J' is not a session id",
    as: 'loopy',
  },
  {
    name: 'an unknown command with an ESC',
    args: ['frob\x1b[2Jnicate'],
    says: "unknown command 'frob\\x1b[2Jnicate'",
  },
  {
    name: 'the-loop help frobnicate',
    args: ['help', 'frobnicate'],
    says: "unknown command 'frobnicate': `the-loop help` lists the commands",
  },
  {
    name: 'loopy help frobnicate',
    args: ['help', 'frobnicate'],
    says: "unknown command 'frobnicate': `loopy help` lists the commands",
    as: 'loopy',
  },
  {
    name: 'the-loop help sessions frobnicate',
    args: ['help', 'sessions', 'frobnicate'],
    says: "unknown command 'frobnicate': `the-loop sessions help`",
  },
];

describe('untrusted input to the CLI', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'untrusted-input-'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    mkdirSync(join(dir, 'dir'));
    writeFileSync(join(dir, 'big.yaml'), `# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    writeFileSync(join(dir, 'none.yaml'), '{}\n');
    env = {
      THE_LOOP_STATE_DIR: join(dir, 'state'),
      // Nothing here may reach a Temporal server: a case that tries fails on this closed port, not by hanging.
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      THE_LOOP_CONFIG: join(dir, 'none.yaml'),
    };
  });

  test.each(cases)('$name → exit 2, one escaped line', async (c) => {
    const result = await runCli(c.args, {
      cwd: dir,
      env,
      name: c.as ?? 'the-loop',
      timeoutMs: 30_000,
      ...(c.input !== undefined ? { input: c.input } : {}),
    });
    const err = result.stderr.replace(/\n$/, '');
    expect({ code: result.code, err }).toEqual({ code: 2, err: expect.stringContaining(c.says) });
    expect(err).not.toMatch(RAW_CONTROL);
    expect(result.stdout).toBe('');
    expect(existsSync(join(dir, '.loopy_loop'))).toBe(false);
  });

  test('a known help topic still prints its help and exits 0', async () => {
    const result = await runCli(['help', 'sessions', 'list'], { cwd: dir, env, timeoutMs: 30_000 });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: the-loop sessions list');
  });
});
