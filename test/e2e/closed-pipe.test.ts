import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedRegistry } from '../../src/work-item/sample-registry';
import { BIN } from '../support/cli';

// `the-loop sessions list | head -1`: the reader leaves after one line, and the rest of the table meets a closed
// pipe. The command ends quietly, as `ls` does, instead of printing an EPIPE stack.
describe('output into a pipe whose reader has gone', () => {
  // The launcher serves `sessions list` from the start-up snapshot; THE_LOOP_SNAPSHOT=0 runs the script instead.
  it.each([
    ['from the start-up snapshot', ''],
    ['from the script', '0'],
  ])('sessions list %s ends with exit 0 and nothing on stderr', async (_path, snapshot) => {
    const dir = mkdtempSync(join(tmpdir(), 'closed-pipe-'));
    // far more than a pipe's 64 KiB buffer, so the writes outlive the reader
    const { configFile } = seedRegistry(dir, 1000);
    const child = spawn(BIN, ['--config', configFile, 'sessions', 'list'], {
      env: { ...process.env, THE_LOOP_STATE_DIR: dir, THE_LOOP_SNAPSHOT: snapshot },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const firstLine = await new Promise<string>((resolve) =>
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().split('\n')[0] ?? '')),
    );
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(firstLine).toMatch(/^WORK ITEM +STATUS/);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
