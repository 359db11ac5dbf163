import { allowedEnvironment } from '../../../src/harness/allowed-env';

/** The base set as a developer's shell leaves it. */
const BASE = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/dev',
  LANG: 'en_US.UTF-8',
  LC_ALL: 'C.UTF-8',
  TERM: 'xterm-256color',
  USER: 'dev',
  LOGNAME: 'dev',
  SHELL: '/bin/bash',
  TMPDIR: '/tmp/dev',
  TZ: 'Europe/Paris',
};

/** A worker's environment: the base names, each CLI's own, and secrets of all kinds. */
const WORKER_ENV = {
  ...BASE,
  AWS_ACCESS_KEY_ID: 'AKIAWORKER',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-of-the-worker',
  NPM_TOKEN: 'npm-token-of-the-worker',
  DATABASE_URL: 'postgres://u:p@db/prod',
  SSH_AUTH_SOCK: '/run/ssh-agent.sock',
  THE_LOOP_CONFIG: '/home/dev/.config/the-loop/config.yaml',
  THE_LOOP_STATE_DIR: '/home/dev/.local/state/the-loop',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
  ANTHROPIC_API_KEY: 'sk-ant-worker',
  CLAUDE_CONFIG_DIR: '/home/dev/.claude',
  DISABLE_TELEMETRY: '1',
  OPENAI_BASE_URL: 'http://127.0.0.1:8',
  CODEX_HOME: '/home/dev/.codex',
  CURSOR_API_KEY: 'cursor-worker',
};

describe('the allow-list of a goal harness environment', () => {
  it('a command harness inherits the base set and nothing else', () => {
    expect(allowedEnvironment('command', WORKER_ENV)).toEqual(BASE);
  });

  it("each agent CLI also inherits its own names, and no other CLI's", () => {
    expect(allowedEnvironment('claude', WORKER_ENV, { withheld: ['ANTHROPIC_API_KEY'] })).toEqual({
      ...BASE,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      CLAUDE_CONFIG_DIR: '/home/dev/.claude',
      DISABLE_TELEMETRY: '1',
    });
    expect(allowedEnvironment('codex', WORKER_ENV)).toEqual({
      ...BASE,
      OPENAI_BASE_URL: 'http://127.0.0.1:8',
      CODEX_HOME: '/home/dev/.codex',
    });
    expect(allowedEnvironment('cursor', WORKER_ENV)).toEqual({ ...BASE, CURSOR_API_KEY: 'cursor-worker' });
  });

  it('a listed name reaches the harness, and wins over the inherited value', () => {
    const env = allowedEnvironment('command', WORKER_ENV, {
      listed: { DATABASE_URL: 'postgres://test', HOME: '/scratch' },
    });
    expect(env.DATABASE_URL).toBe('postgres://test');
    expect(env.HOME).toBe('/scratch');
    expect(env.NPM_TOKEN).toBeUndefined();
  });

  it('never hands over a THE_LOOP_* name, inherited or listed', () => {
    const env = allowedEnvironment('claude', WORKER_ENV, {
      listed: { THE_LOOP_STATE_DIR: '/elsewhere', THE_LOOP_CLAUDE_BIN: '/opt/claude' },
    });
    expect(Object.keys(env).filter((name) => name.startsWith('THE_LOOP_'))).toEqual([]);
  });
});
