import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';

/**
 * Bad input at every door: each case is what a user typed, the documented exit code, and a fragment of the
 * one-line error. No case may print a stack trace, and none may leave a session directory behind.
 */
interface BadInputCase {
  name: string;
  args: string[];
  code: number;
  says: string;
  /** A config file's text for this case (written as the-loop.yaml and passed through THE_LOOP_CONFIG). */
  config?: string;
  /** Bytes of goal written to goal.md for --goal-file. */
  goalFileBytes?: number;
}

const RUN = ['run', '--harness', 'command', '--harness-command', 'true', '--goal', 'g'];
const REF = 'github:octo/repo#1';
const CLAUDE_ID = '123e4567-e89b-42d3-a456-426614174000';

const cases: BadInputCase[] = [
  {
    name: 'hex iterations',
    args: [...RUN, '--max-iterations', '0x10'],
    code: 2,
    says: '--max-iterations 0x10',
  },
  {
    name: 'exponent iterations',
    args: [...RUN, '--max-iterations', '1e21'],
    code: 2,
    says: '--max-iterations 1e21',
  },
  { name: 'zero iterations', args: [...RUN, '--max-iterations', '0'], code: 2, says: 'whole number from 1' },
  { name: 'negative cost', args: [...RUN, '--max-cost-usd', '-1'], code: 2, says: '--max-cost-usd' },
  { name: 'hex cost', args: [...RUN, '--max-cost-usd', '0x5'], code: 2, says: '--max-cost-usd 0x5' },
  {
    name: 'a budget over a harness that reports no usage',
    args: [...RUN, '--max-cost-usd', '5'],
    code: 2,
    says: 'the command harness reports no token usage, so a budget cannot count its cost: drop the budget',
  },
  {
    name: 'a fleet budget over a harness that reports no usage',
    args: RUN,
    code: 2,
    says: 'or pass --allow-unpriced',
    config: 'budget:\n  daily: 20\n',
  },
  {
    name: 'a work-item budget over cursor',
    args: ['sessions', 'start', '--work-item', REF, '--max-cost-usd', '1', '--no-comment'],
    code: 2,
    says: 'github:octo/repo#1: the cursor harness reports no token usage',
    config: 'harness:\n  default: cursor\n',
  },
  { name: 'budget raise, whose?', args: ['budget', 'raise', '--to', '5'], code: 2, says: 'say whose budget' },
  {
    name: 'budget raise, how much?',
    args: ['budget', 'raise', '--daily'],
    code: 2,
    says: 'say how much: --to <USD>',
  },
  { name: 'budget raise, hex', args: ['budget', 'raise', REF, '--to', '0x5'], code: 2, says: '--to 0x5' },
  {
    name: 'budget raise by, with no budget',
    args: ['budget', 'raise', '--monthly', '--by', '5'],
    code: 2,
    says: 'the fleet has no monthly budget yet: give --to <USD> to set one',
  },
  {
    name: 'tiny duration',
    args: [...RUN, '--max-duration', '0.0001s'],
    code: 2,
    says: "'0.0001s' is not a duration",
  },
  {
    name: 'huge duration',
    args: [...RUN, '--max-duration', '99999999d'],
    code: 2,
    says: 'is not a duration',
  },
  { name: 'unit-less duration', args: [...RUN, '--max-duration', '90'], code: 2, says: 'is not a duration' },
  {
    name: 'goal over the cap',
    args: ['run', '--harness', 'command', '--harness-command', 'true', '--goal-file', 'goal.md'],
    code: 2,
    says: 'the limit is',
    goalFileBytes: 3 * 1024 * 1024,
  },
  { name: 'status format xml', args: ['status', '--format', 'xml'], code: 2, says: 'xml' },
  { name: 'session id that is a flag', args: ['status', '--', '--rf'], code: 2, says: 'is not a session id' },
  {
    name: 'sessions list status not a choice',
    args: ['sessions', 'list', '--format', 'table', '--status', 'nope'],
    code: 2,
    says: 'nope',
  },
  {
    name: 'ref port out of range',
    args: [
      'sessions',
      'register',
      '--work-item',
      'github:ghe.example.com:99999/octo/repo#1',
      '--harness',
      'claude',
      '--harness-session-id',
      CLAUDE_ID,
    ],
    code: 2,
    says: 'is not a host name',
  },
  {
    name: 'harness session id that is a flag',
    args: [
      'sessions',
      'register',
      '--work-item',
      REF,
      '--harness',
      'claude',
      '--harness-session-id=--dangerously-skip-permissions',
    ],
    code: 2,
    says: '--harness-session-id',
  },
  {
    name: 'claude session id not a uuid',
    args: ['sessions', 'register', '--work-item', REF, '--harness', 'claude', '--harness-session-id', 'abc'],
    code: 2,
    says: 'UUID',
  },
  { name: 'webhook port', args: ['webhook', '--port', '99999'], code: 2, says: '--port' },
  {
    name: 'log level',
    args: ['webhook', '--log-level', 'loud'],
    code: 2,
    says: "'--log-level <level>' argument 'loud'",
  },
  {
    name: 'log format',
    args: ['webhook', '--log-format', 'xml'],
    code: 2,
    says: "'--log-format <format>' argument 'xml'",
  },
  {
    name: 'eval timeout',
    args: ['eval', 'run', '--check-dir', '.', '--output-dir', 'out', '--timeout', '0.0001s'],
    code: 2,
    says: 'is not a duration',
  },
  {
    name: 'bad duration in the config, run',
    args: RUN,
    code: 2,
    says: 'worker.heartbeatTimeout',
    config: 'worker:\n  heartbeatTimeout: 0.0001s\n',
  },
  {
    name: 'bad duration in the config, status',
    args: ['status'],
    code: 2,
    says: 'worker.heartbeatTimeout',
    config: 'worker:\n  heartbeatTimeout: 0.0001s\n',
  },
  {
    name: 'bad duration in the config, service status',
    args: ['--config', 'the-loop.yaml', 'status'],
    code: 2,
    says: 'poller.interval',
    config: 'poller:\n  interval: soon\n',
  },
  {
    name: 'GitHub unreachable (a name that does not resolve)',
    args: ['item', 'show', REF],
    code: 1,
    says: 'cannot reach GitHub at nonexistent.invalid',
    config: 'github:\n  apiUrl: http://nonexistent.invalid\n',
  },
];

describe('bad input at every door', () => {
  test.each(cases)('$name → exit $code', async (c) => {
    const dir = mkdtempSync(join(tmpdir(), 'bad-input-'));
    const env: NodeJS.ProcessEnv = {
      THE_LOOP_STATE_DIR: join(dir, 'state'),
      // Nothing here may reach a Temporal server: a case that tries fails on this closed port, not by hanging.
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      THE_LOOP_CONFIG: join(dir, 'none.yaml'),
    };
    if (c.config !== undefined) {
      writeFileSync(join(dir, 'the-loop.yaml'), c.config);
      env.THE_LOOP_CONFIG = join(dir, 'the-loop.yaml');
    } else {
      writeFileSync(join(dir, 'none.yaml'), '{}\n');
    }
    if (c.goalFileBytes) writeFileSync(join(dir, 'goal.md'), 'x'.repeat(c.goalFileBytes));
    const name = ['sessions', 'webhook', 'item', 'budget', '--config'].includes(c.args[0] ?? '')
      ? 'the-loop'
      : 'loopy';
    const result = await runCli(c.args, { cwd: dir, env, name });
    const err = result.stderr.trim();
    expect({ code: result.code, err }).toEqual({ code: c.code, err: expect.stringContaining(c.says) });
    expect(err.split('\n')).toHaveLength(1);
    expect(err).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, '.loopy_loop', 'sessions'))).toBe(false);
  });
});
