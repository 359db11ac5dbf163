import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedRegistry } from '../../../src/work-item/sample-registry';
import { run as loopyList } from '../../../src/cli/commands/loopy/list';
import { run as sessionsList } from '../../../src/cli/commands/sessions/list';
import { capturedIo } from '../../support/captured-io';

describe('list verbs run without a process: streams injected, exit code returned', () => {
  let dir: string;
  let configFile: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-list-'));
    process.env.THE_LOOP_STATE_DIR = dir;
    ({ configFile } = seedRegistry(dir, 30));
  });

  it('sessions list prints one aligned row per record under a header', async () => {
    const io = capturedIo();
    expect(await sessionsList({ config: configFile, format: 'table' }, io)).toBe(0);
    expect(io.stderr).toEqual([]);
    expect(io.stdout).toHaveLength(31);
    expect(io.stdout[0]).toMatch(
      /^WORK ITEM +STATUS +SINCE +COST +LAST CONTROL +HARNESS +CONVERSATION +TMUX +PRS +NODE +CWD$/,
    );
    const statusColumn = (io.stdout[0] ?? '').indexOf('STATUS');
    for (const line of io.stdout.slice(1))
      expect(line.slice(statusColumn)).toMatch(/^(active|paused|closed) /);
  });

  it('sessions list --status closed --format json: only the closed records, as JSON', async () => {
    const io = capturedIo();
    expect(await sessionsList({ config: configFile, format: 'json', status: 'closed' }, io)).toBe(0);
    const records = JSON.parse(io.stdout.join('\n')) as { work_item: string; status: string }[];
    expect(records.map((r) => r.status)).toEqual(['closed', 'closed', 'closed']);
  });

  it('sessions list over an empty registry (routing.registryDir) says so on stderr and exits 0', async () => {
    const io = capturedIo();
    const registryDir = join(dir, 'empty');
    const emptyConfig = join(dir, 'empty.yaml');
    writeFileSync(emptyConfig, `routing:\n  registryDir: ${registryDir}\n`);
    expect(await sessionsList({ config: emptyConfig, format: 'table' }, io)).toBe(0);
    expect(io.stdout).toEqual([]);
    expect(io.stderr).toEqual([`no sessions in ${registryDir}`]);
  });

  it('loopy list in a directory without sessions says where it looked', async () => {
    const cwd = join(dir, 'work');
    mkdirSync(cwd);
    const io = capturedIo();
    expect(await loopyList({ config: configFile, format: 'table', status: 'running' }, io, cwd)).toBe(0);
    expect(io.stdout).toEqual([`no running sessions under ${join(cwd, '.loopy_loop', 'sessions')}`]);
  });
});
