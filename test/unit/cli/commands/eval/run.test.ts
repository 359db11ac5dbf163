import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, type EvalRunOptions } from '../../../../../src/cli/commands/eval/run';
import { capturedIo } from '../../../../support/captured-io';
import { refusal } from '../../../../support/cli-refusal';

describe('eval run', () => {
  let root: string;
  let options: EvalRunOptions;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'eval-run-'));
    const checkDir = join(root, 'checks');
    mkdirSync(checkDir);
    options = { checkDir, outputDir: join(root, 'out'), cwd: root, timeout: '10s', builtin: true };
  });

  it('refuses a --check-dir that is no directory with exit 2, and runs nothing', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    for (const checkDir of [join(root, 'missing'), file]) {
      const io = capturedIo();
      const error = await refusal(run({ ...options, checkDir }, io));
      expect(error.exitCode).toBe(2);
      expect(error.message).toBe(`--check-dir ${checkDir}: no such directory`);
      expect(io.stdout).toEqual([]);
    }
  });

  it('refuses a --timeout that is no duration with exit 2', async () => {
    expect((await refusal(run({ ...options, timeout: 'soon' }, capturedIo()))).exitCode).toBe(2);
  });

  it('the built-in runner prints a line a check and the summary; one failed check is exit 1', async () => {
    writeFileSync(join(options.checkDir, 'passes.cmd'), 'true\n');
    writeFileSync(join(options.checkDir, 'fails.cmd'), 'exit 3\n');
    const io = capturedIo();
    expect(await run(options, io)).toBe(1);
    expect(io.stdout.slice(0, 2)).toEqual(['FAIL  fails', 'pass  passes']);
    expect(io.stdout[2]).toMatch(/^1 of 2 checks passed — .*\/report\.md$/);
    expect(io.stdout).toHaveLength(3);
  });

  it('every check passing is exit 0', async () => {
    writeFileSync(join(options.checkDir, 'passes.cmd'), 'true\n');
    expect(await run(options, capturedIo())).toBe(0);
  });
});
