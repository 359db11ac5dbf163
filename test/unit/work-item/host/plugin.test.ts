import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { claudeEnvScript } from '../../../../src/work-item/host/plugin';

/**
 * A command as Claude Code runs it when it has no snapshot of the user's shell: a login shell (`bash -c -l`), the
 * CLAUDE_ENV_FILE's text first, then the command. The shell starts from a PATH without the installation's bin/, as
 * a login profile that sets PATH anew leaves it.
 */
async function inLoginShell(script: string, command: string): Promise<string> {
  const result = await execa('bash', ['-c', '-l', `${script}\n: && ${command}`], {
    env: { PATH: '/usr/bin:/bin', HOME: tmpdir() },
    extendEnv: false,
    reject: false,
  });
  return result.stdout.trim();
}

describe("a hosted claude's CLAUDE_ENV_FILE", () => {
  const dir = mkdtempSync(join(tmpdir(), 'claude-env-file-'));
  // a directory name a shell would split or unquote
  const bin = join(dir, "the loop's bin");
  mkdirSync(bin);
  writeFileSync(join(bin, 'the-loop'), '#!/bin/sh\necho the-loop ran\n');
  chmodSync(join(bin, 'the-loop'), 0o755);
  const panePath = `${bin}:/usr/bin:/bin`;

  it("puts the pane's PATH back, so that `the-loop` is found in a login shell", async () => {
    // the machine may have its own the-loop installed globally; this one's is what must not be found
    expect(await inLoginShell('', 'command -v the-loop || echo not found')).not.toBe(join(bin, 'the-loop'));
    const script = claudeEnvScript(panePath, undefined);
    expect(await inLoginShell(script, 'the-loop')).toBe('the-loop ran');
    expect(await inLoginShell(script, 'echo "$PATH"')).toBe(panePath);
  });

  it("sources the user's own CLAUDE_ENV_FILE after it, whose changes to PATH stay; a missing one is skipped", async () => {
    const own = join(dir, 'own env.sh');
    writeFileSync(own, 'export PATH="/opt/venv/bin:$PATH"\nexport FROM_OWN=yes\n');
    const script = claudeEnvScript(panePath, own);
    expect(await inLoginShell(script, 'echo "$PATH $FROM_OWN"')).toBe(`/opt/venv/bin:${panePath} yes`);
    const missing = claudeEnvScript(panePath, join(dir, 'gone.sh'));
    expect(await inLoginShell(missing, 'the-loop')).toBe('the-loop ran');
  });

  it('sets no PATH when the pane has none', () => {
    expect(claudeEnvScript(undefined, undefined)).toBe('\n');
  });
});
