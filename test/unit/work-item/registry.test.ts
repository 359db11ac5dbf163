import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../src/config/schema';
import { appendWorkItemEvent, readWorkItemEvents } from '../../../src/work-item/event-log';
import { workItemDirs } from '../../../src/work-item/paths';
import { readPortable, updatePortable } from '../../../src/work-item/portable';
import { listRecords, updateRecord, writeRecord } from '../../../src/work-item/registry';
import type { RegistryRecord } from '../../../src/work-item/schemas';
import { sessionRecord } from '../../support/registry-record';

const record = (
  workItem: string,
  slug: string,
  status: RegistryRecord['status'] = 'active',
): RegistryRecord => ({
  ...sessionRecord(workItem, [], '/tmp'),
  slug,
  status,
  harness_session_id: 'abc',
  session_dir: '/tmp/s',
});

describe('registry, portable record and event log', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'wi-reg-'));
  const dirs = workItemDirs(configSchema.parse({}), stateDir);

  it('defaults to <state.root>/local and <state.root>/portable; routing.registryDir and state.root move them', () => {
    expect(dirs.registryDir).toBe(join(stateDir, 'local'));
    expect(dirs.portableDir).toBe(join(stateDir, 'portable'));
    const other = workItemDirs(
      configSchema.parse({ state: { root: '/srv/x' }, routing: { registryDir: '/r' } }),
      stateDir,
    );
    expect(other).toMatchObject({ stateRoot: '/srv/x', registryDir: '/r', portableDir: '/srv/x/portable' });
  });

  it('writes one human-readable JSON file per session, lists and filters, names invalid files', () => {
    writeRecord(dirs, record('github:octo/repo#1', 's1'));
    writeRecord(dirs, record('github:octo/repo#2', 's2', 'paused'));
    writeRecord(dirs, record('github:octo/repo#10', 's10', 'closed'));
    writeFileSync(join(dirs.registryDir, 'broken.json'), '{');
    const all = listRecords(dirs.registryDir);
    expect(all.records.map((r) => r.work_item)).toEqual([
      'github:octo/repo#1',
      'github:octo/repo#2',
      'github:octo/repo#10',
    ]);
    expect(all.invalid).toHaveLength(1);
    expect(listRecords(dirs.registryDir, 'paused').records.map((r) => r.work_item)).toEqual([
      'github:octo/repo#2',
    ]);
    expect(readdirSync(dirs.registryDir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(listRecords(join(stateDir, 'nowhere')).records).toEqual([]);
  });

  it('portable record keeps sections; the event log appends and tolerates a torn last line', async () => {
    await updatePortable(dirs, 'p1', 'github:octo/repo#1', (p) => ({ ...p, poll: { cursor: 'x' } }));
    await updatePortable(dirs, 'p1', 'github:octo/repo#1', (p) => ({
      ...p,
      graph: { node: 'spec', at: new Date().toISOString() },
    }));
    expect(readPortable(dirs, 'p1')).toMatchObject({
      poll: { cursor: 'x' },
      graph: { node: 'spec' },
      control: null,
    });
    appendWorkItemEvent(dirs, 'p1', 'github:octo/repo#1', 'session.registered');
    appendWorkItemEvent(dirs, 'p1', 'github:octo/repo#1', 'session.reset', { removed: ['session'] });
    writeFileSync(join(dirs.eventsDir, 'p1.jsonl'), '{"v":1,"ts":', { flag: 'a' });
    expect(readWorkItemEvents(dirs, 'p1').map((e) => e.type)).toEqual([
      'session.registered',
      'session.reset',
    ]);
    expect(await updateRecord(dirs, 'missing', () => null)).toBeNull();
  });
});
