import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../../src/config/schema';
import { artifactDirectory, nodeArtifactsMissing } from '../../../../src/work-item/host/branch-node';
import { workItemDirs } from '../../../../src/work-item/paths';
import { writeRecord } from '../../../../src/work-item/registry';
import type { RegistryRecord } from '../../../../src/work-item/schemas';
import { DEFAULT_PROCESS_GRAPH } from '../../../../src/config/process-graph';
import { sessionRecord } from '../../../support/registry-record';

const ITEM = 'github:octo/repo#27';
const SPEC = join('docs', 'specs', '27', 'spec.md');

function checkoutOf(path: string): NonNullable<RegistryRecord['checkout']> {
  return { strategy: 'worktree', path, clone: join(path, '..', 'clone.git'), branch: 'loop/x' };
}

describe("artifactDirectory: where an agent node's artifacts are looked for", () => {
  it('a registered conversation: the directory it was registered in (it has no checkout)', () => {
    expect(artifactDirectory({ cwd: '/home/me/repo', checkout: null })).toBe('/home/me/repo');
  });

  it('a started session: its checkout, which its spawn also records as its directory', () => {
    const checkout = checkoutOf('/state/workspaces/octo-repo-27');
    expect(artifactDirectory({ cwd: checkout.path, checkout })).toBe(checkout.path);
    expect(artifactDirectory({ cwd: null, checkout })).toBe(checkout.path);
  });

  it('a conversation registered again over a kept checkout runs in its own directory: that one', () => {
    const checkout = checkoutOf('/state/workspaces/octo-repo-27');
    expect(artifactDirectory({ cwd: '/home/me/repo', checkout })).toBe('/home/me/repo');
  });

  it('nowhere yet: no record, or neither a directory nor a checkout', () => {
    expect(artifactDirectory(null)).toBeNull();
    expect(artifactDirectory({ cwd: null, checkout: null })).toBeNull();
  });
});

describe("nodeArtifactsMissing: the spec node's artifact, by the registry record on this machine", () => {
  function host(record: (root: string) => RegistryRecord): { root: string; missing: () => string[] } {
    const root = mkdtempSync(join(tmpdir(), 'artifact-dir-'));
    const config = configSchema.parse({});
    const stateDir = join(root, 'state');
    writeRecord(workItemDirs(config, stateDir), record(root));
    const input = { workItem: ITEM, graph: DEFAULT_PROCESS_GRAPH, node: 'spec' };
    return { root, missing: () => nodeArtifactsMissing({ config, stateDir }, input) };
  }
  const write = (dir: string) => {
    mkdirSync(join(dir, 'docs', 'specs', '27'), { recursive: true });
    writeFileSync(join(dir, SPEC), '# the spec\n');
  };

  it('a registered conversation (no checkout) is checked in its own directory, named in full when missing', () => {
    const { root, missing } = host((r) => sessionRecord(ITEM, [], join(r, 'conversation')));
    const dir = join(root, 'conversation');
    mkdirSync(dir);
    expect(missing()).toEqual([join(dir, SPEC)]);
    write(dir);
    expect(missing()).toEqual([]);
  });

  it('a checked-out session is checked in its checkout, not in another directory', () => {
    const { root, missing } = host((r) => ({
      ...sessionRecord(ITEM, [], join(r, 'checkout')),
      checkout: checkoutOf(join(r, 'checkout')),
    }));
    write(join(root, 'elsewhere'));
    expect(missing()).toEqual([join(root, 'checkout', SPEC)]);
    write(join(root, 'checkout'));
    expect(missing()).toEqual([]);
  });

  it('with nowhere to look, the artifacts are named as the node declares them', () => {
    const { missing } = host(() => sessionRecord(ITEM, [], null));
    expect(missing()).toEqual(['docs/specs/27/spec.md']);
  });
});
