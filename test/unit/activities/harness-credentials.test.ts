import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessEnvironment, withHarnessCredentials } from '../../../src/activities/harness-credentials';
import { configSchema } from '../../../src/config/schema';
import type { HarnessRunRequest } from '../../../src/harness';
import { harnessEnv } from '../../../src/harness/env';

const WORKER_ENV = {
  GH_TOKEN: 'ghp_worker',
  ANTHROPIC_API_KEY: 'sk-ant-worker',
  OPENAI_API_KEY: 'sk-openai-worker',
  CURSOR_API_KEY: 'cursor-worker',
  PLAIN: 'plain',
};

function request(): HarnessRunRequest {
  return {
    prompt: 'p',
    promptFile: '/s/i/prompt.txt',
    cwd: '/s',
    sessionDir: '/s',
    iterationDir: '/s/i',
    goalFile: '/s/goal.md',
    controlFile: '/s/control.json',
    outputDir: '/s/o',
    runId: 'run-1-abc',
    iteration: 1,
    routineId: 'planner',
    timeoutMs: 1000,
    options: { extraArgs: ['--verbose'] },
  };
}

describe('goal-loop harness credentials', () => {
  it('keeps every credential name out of a harness that lists none', () => {
    const config = configSchema.parse({});
    const { env, withheld } = harnessEnvironment({ config }, 'command', WORKER_ENV);
    expect(env).toEqual({});
    expect(withheld).toEqual(
      expect.arrayContaining(['GH_TOKEN', 'ANTHROPIC_API_KEY', 'THE_LOOP_WEBHOOK_SECRET']),
    );
    expect(withheld).not.toContain('PLAIN');
  });

  it('codex and cursor keep their own API key by default, and only that', () => {
    const config = configSchema.parse({});
    const codex = harnessEnvironment({ config }, 'codex', WORKER_ENV);
    expect(codex.env).toEqual({ OPENAI_API_KEY: 'sk-openai-worker' });
    expect(codex.withheld).toEqual(expect.arrayContaining(['GH_TOKEN', 'CURSOR_API_KEY']));
    expect(codex.withheld).not.toContain('OPENAI_API_KEY');
    expect(harnessEnvironment({ config }, 'cursor', WORKER_ENV).env).toEqual({
      CURSOR_API_KEY: 'cursor-worker',
    });
  });

  it("a listed name takes env.file's value first; env.file's other names are kept out", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loopy-cred-')), 'the-loop.env');
    writeFileSync(file, 'GH_TOKEN=ghp_file\nDEPLOY_KEY=secret\n');
    const config = configSchema.parse({
      env: { file },
      harness: { command: { env: ['GH_TOKEN', 'PLAIN'] } },
    });
    const { env, withheld } = harnessEnvironment({ config }, 'command', WORKER_ENV);
    expect(env).toEqual({ GH_TOKEN: 'ghp_file', PLAIN: 'plain' });
    expect(withheld).toContain('DEPLOY_KEY');
    expect(withheld).not.toContain('GH_TOKEN');
  });

  it('the harness environment is the allow-list, whatever else the worker holds; withheld names stay out', () => {
    const inherited = {
      GH_TOKEN: 'ghp_worker',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      NPM_TOKEN: 'npm-token',
      DATABASE_URL: 'postgres://u:p@db/prod',
      THE_LOOP_CONFIG: '/c/config.yaml',
      THE_LOOP_STATE_DIR: '/c/state',
      HOME: '/home/worker',
    };
    const saved = { ...process.env };
    Object.assign(process.env, inherited);
    try {
      const config = configSchema.parse({ harness: { claude: { env: ['DATABASE_URL'] } } });
      const { env: listed, withheld } = harnessEnvironment({ config }, 'claude', {
        ...WORKER_ENV,
        ...inherited,
      });
      const env = harnessEnv('claude', { ...request(), env: listed, withheld });
      for (const name of [
        'GH_TOKEN',
        'ANTHROPIC_API_KEY',
        'AWS_SECRET_ACCESS_KEY',
        'NPM_TOKEN',
        'THE_LOOP_CONFIG',
      ]) {
        expect([name, env[name]]).toEqual([name, undefined]);
      }
      expect(env.THE_LOOP_STATE_DIR).toBeUndefined();
      expect(env.HOME).toBe('/home/worker');
      expect(env.ANTHROPIC_BASE_URL).toBe('http://127.0.0.1:9'); // claude's own name
      expect(env.DATABASE_URL).toBe('postgres://u:p@db/prod'); // listed
      expect(env.LOOPY_ITERATION).toBe('1');
    } finally {
      process.env = saved;
    }
  });

  it('a config that lists a THE_LOOP_* name for a harness is refused', () => {
    const listed = configSchema.safeParse({ harness: { command: { env: ['THE_LOOP_STATE_DIR'] } } });
    expect(listed.success).toBe(false);
    expect(JSON.stringify(listed.error?.issues)).toContain('never reach a harness');
  });

  it("claude gets the worker's API key through apiKeyHelper, in no environment", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'loopy-state-'));
    const config = configSchema.parse({});
    const launched = await withHarnessCredentials({ config, stateDir }, 'claude', request(), WORKER_ENV);
    expect(launched.withheld).toContain('ANTHROPIC_API_KEY');
    expect(launched.env).toEqual({});
    const [flag, settingsFile, ...rest] = launched.options.extraArgs ?? [];
    expect(flag).toBe('--settings');
    expect(rest).toEqual(['--verbose']);
    const settings = JSON.parse(readFileSync(settingsFile ?? '', 'utf8')) as { apiKeyHelper: string };
    const keyFile = /^cat '(.*)'$/.exec(settings.apiKeyHelper)?.[1] ?? '';
    expect(readFileSync(keyFile, 'utf8')).toBe('sk-ant-worker');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(launched)).not.toContain('sk-ant-worker');
  });

  it('claude without a key, or with the key listed, gets no helper', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'loopy-state-'));
    const none = await withHarnessCredentials(
      { config: configSchema.parse({}), stateDir },
      'claude',
      request(),
      { PLAIN: 'plain' },
    );
    expect(none.options.extraArgs).toEqual(['--verbose']);
    const listed = await withHarnessCredentials(
      { config: configSchema.parse({ harness: { claude: { env: ['ANTHROPIC_API_KEY'] } } }), stateDir },
      'claude',
      request(),
      WORKER_ENV,
    );
    expect(listed.options.extraArgs).toEqual(['--verbose']);
    expect(listed.env).toEqual({ ANTHROPIC_API_KEY: 'sk-ant-worker' });
  });
});
