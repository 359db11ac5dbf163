import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { realClaudeBin } from '../../support/mock-anthropic';

// Each case runs the real CLI; on a loaded machine one run took minutes.
jest.setTimeout(600_000);

const ROOT = resolve(__dirname, '..', '..', '..');
const PLUGIN = join(ROOT, 'plugin');

/** `claude plugin validate --strict`, by the real CLI, offline, in a scratch HOME. */
function validate(dir: string): { status: number | null; output: string } {
  const home = mkdtempSync(join(tmpdir(), 'tl-validate-'));
  const result = spawnSync(realClaudeBin(), ['plugin', 'validate', '--strict', dir], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    },
    // a bound for a hang, not a speed: beside two CPU burners one validation took over 60 s
    timeout: 300_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the Claude Code plugin (plugin/)', () => {
  it('passes `claude plugin validate --strict`', () => {
    const result = validate(PLUGIN);
    expect(result).toMatchObject({ status: 0, output: expect.stringContaining('Validation passed') });
  });

  it('the repository root is a marketplace that offers it', () => {
    expect(validate(ROOT)).toMatchObject({ status: 0, output: expect.stringContaining('Validation passed') });
  });

  it('the validator does catch a broken manifest (so the check above can fail)', () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'tl-plugin-')), 'plugin');
    cpSync(PLUGIN, copy, { recursive: true });
    writeFileSync(join(copy, '.claude-plugin', 'plugin.json'), '{ "name": "the loop", "version": 1 }\n');
    expect(validate(copy).status).not.toBe(0);
  });

  it('carries the package version, and every hook command names a script that exists', () => {
    const manifest = JSON.parse(readFileSync(join(PLUGIN, '.claude-plugin', 'plugin.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(manifest).toMatchObject({ name: 'the-loop', version: pkg.version });
    const hooks = JSON.parse(readFileSync(join(PLUGIN, 'hooks', 'hooks.json'), 'utf8')) as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    expect(Object.keys(hooks.hooks).sort()).toEqual([
      'Notification',
      'PermissionRequest',
      'PostToolUse',
      'SessionStart',
      'Stop',
      'UserPromptSubmit',
    ]);
    for (const entries of Object.values(hooks.hooks))
      for (const { command } of entries.flatMap((e) => e.hooks)) {
        const script = /\$\{CLAUDE_PLUGIN_ROOT\}\/([^"]+)"/.exec(command)?.[1];
        expect([command, script !== undefined && existsSync(join(PLUGIN, script))]).toEqual([command, true]);
      }
  });
});
