import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../src/config/schema';
import {
  compareEnvironment,
  declaredEnvironment,
  fingerprint,
  parseEnvFile,
  readProcessEnvironment,
} from '../../../src/work-item/env';
import { withKeptOut } from '../../../src/work-item/harness';

describe('session environment', () => {
  it('parses env files: export, quotes, comments', () => {
    const values = parseEnvFile(
      '# comment\nexport A=1\nB="two words"\nC=\'x#y\'\nD=plain # trailing\n\nnot a line\nE=\n',
    );
    expect(Object.fromEntries(values)).toEqual({ A: '1', B: 'two words', C: 'x#y', D: 'plain', E: '' });
  });

  it('forwards non-secret passthrough names, refuses credentials, keeps out every other env.file name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wi-env-'));
    const file = join(dir, '.env');
    writeFileSync(file, 'HTTPS_PROXY=http://proxy:1\nGH_TOKEN=ghp_secret\nJIRA_API_TOKEN=jira\n');
    const config = configSchema.parse({
      env: { file, sessionPassthrough: ['HTTPS_PROXY', 'GH_TOKEN', 'LANG_X'] },
    });
    const declared = declaredEnvironment(config, { LANG_X: 'C', GH_TOKEN: 'from-env' });
    expect(declared.forwarded).toEqual([
      { name: 'HTTPS_PROXY', value: 'http://proxy:1' },
      { name: 'LANG_X', value: 'C' },
    ]);
    expect(declared.refused).toEqual(['GH_TOKEN']);
    expect(declared.keptOut).toEqual(expect.arrayContaining(['GH_TOKEN', 'GITHUB_TOKEN', 'JIRA_API_TOKEN']));
    expect(declared.keptOut).not.toContain('HTTPS_PROXY');
    expect(declared.declared).toBe(true);
    expect(declaredEnvironment(configSchema.parse({})).declared).toBe(false);
  });

  it('compares name by name, and fingerprints never contain the value', () => {
    const declared = {
      forwarded: [
        { name: 'A', value: 'new' },
        { name: 'B', value: 'b' },
      ],
      keptOut: ['GH_TOKEN'],
      refused: [],
      declared: true,
    };
    const mismatches = compareEnvironment(
      new Map([
        ['A', 'old'],
        ['GH_TOKEN', 'x'],
      ]),
      declared,
    );
    expect(mismatches.map((m) => [m.name, m.problem])).toEqual([
      ['A', 'differs'],
      ['B', 'missing'],
      ['GH_TOKEN', 'held'],
    ]);
    expect(fingerprint('new')).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(fingerprint('new')).not.toContain('new');
    expect(
      compareEnvironment(
        new Map([
          ['A', 'new'],
          ['B', 'b'],
        ]),
        declared,
      ),
    ).toEqual([]);
  });

  it('reads a real process environment from /proc, and reports null where it cannot', () => {
    const env = readProcessEnvironment(process.pid);
    expect(env?.get('PATH')).toBe(process.env.PATH);
    expect(readProcessEnvironment(process.pid, '/nonexistent-proc')).toBeNull();
  });

  it('keeps names out with env -u', () => {
    expect(withKeptOut(['GH_TOKEN', 'X'], ['claude', '--resume', 'id'])).toEqual([
      'env',
      '-u',
      'GH_TOKEN',
      '-u',
      'X',
      'claude',
      '--resume',
      'id',
    ]);
  });
});
