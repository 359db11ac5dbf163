import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../src/config/schema';
import { EXIT } from '../../../src/errors';
import { restartScope } from '../../../src/use-cases/restart';
import type { SessionsContext } from '../../../src/use-cases/context';
import { fingerprint } from '../../../src/work-item/env';
import { workItemDirs } from '../../../src/work-item/paths';
import { writeRecord } from '../../../src/work-item/registry';
import type { RegistryRecord } from '../../../src/work-item/schemas';
import { sessionRecord } from '../../support/registry-record';
import { refusal } from '../../support/cli-refusal';

/** A state directory and an env file of its own; `env` is the configuration's `env:` section. */
function context(env: Record<string, unknown>, envFile?: string): SessionsContext {
  const stateDir = mkdtempSync(join(tmpdir(), 'uc-restart-'));
  const file = join(stateDir, '.env');
  if (envFile !== undefined) writeFileSync(file, envFile);
  return {
    config: configSchema.parse({ env: { ...env, ...(envFile !== undefined ? { file } : {}) } }),
    stateDir,
  };
}

function record(ctx: SessionsContext, workItem: string, status: RegistryRecord['status']): void {
  writeRecord(workItemDirs(ctx.config, ctx.stateDir), { ...sessionRecord(workItem, [], null), status });
}

describe('restartScope', () => {
  it('refuses (exit 1) when neither env.file nor env.sessionPassthrough is declared: nothing to roll onto', async () => {
    const ctx = context({});
    const error = await refusal(restartScope(ctx, { all: false, workItems: ['github:octo/repo#1'] }));
    expect(error.exitCode).toBe(EXIT.failure);
    expect(error.message).toMatch(/^refusing to restart: neither env\.file nor env\.sessionPassthrough/);
  });

  it('a malformed ref is bad input (exit 2), found before the environment is even looked at', async () => {
    // nothing is declared either: the usage error wins, so the refs are checked first
    const error = await refusal(
      restartScope(context({}), { all: false, workItems: ['github:octo/repo#1', 'octo/repo#2'] }),
    );
    expect(error.exitCode).toBe(EXIT.usage);
    expect(error.message).toContain('octo/repo#2');
  });

  it('forwards the non-secret passthrough names by fingerprint only, refuses credentials, keeps out the rest', async () => {
    const ctx = context(
      { sessionPassthrough: ['HTTPS_PROXY', 'GH_TOKEN'] },
      'HTTPS_PROXY=http://proxy:3128\nGH_TOKEN=ghp_secret\nJIRA_API_TOKEN=jira-secret\n',
    );
    const scope = await restartScope(ctx, {
      all: false,
      workItems: ['github:Octo/Repo#7', 'github:github.com/octo/repo#8'],
    });
    // named refs come back canonical, in the order given
    expect(scope.workItems).toEqual(['github:octo/repo#7', 'github:octo/repo#8']);
    expect(scope.forwarded).toEqual([{ name: 'HTTPS_PROXY', fingerprint: fingerprint('http://proxy:3128') }]);
    expect(JSON.stringify(scope)).not.toContain('http://proxy:3128');
    expect(JSON.stringify(scope)).not.toContain('ghp_secret');
    expect(scope.refused).toEqual(['GH_TOKEN']);
    expect(scope.keptOut).toEqual(expect.arrayContaining(['GH_TOKEN', 'JIRA_API_TOKEN']));
    expect(scope.keptOut).not.toContain('HTTPS_PROXY');
  });

  it("--all takes every open session this machine's registry holds, never a closed one", async () => {
    const ctx = context({}, 'LANG_X=C\n');
    record(ctx, 'github:octo/repo#1', 'active');
    record(ctx, 'github:octo/repo#2', 'paused');
    record(ctx, 'github:octo/repo#3', 'closed');
    const scope = await restartScope(ctx, { all: true });
    expect([...scope.workItems].sort()).toEqual(['github:octo/repo#1', 'github:octo/repo#2']);
    // an env.file alone declares the environment: its names are kept out, none forwarded
    expect(scope.forwarded).toEqual([]);
    expect(scope.keptOut).toContain('LANG_X');
  });

  it('--all on a machine with no registry yet is an empty scope, not an error', async () => {
    const scope = await restartScope(context({ sessionPassthrough: ['LANG_X'] }), { all: true });
    expect(scope.workItems).toEqual([]);
  });
});
