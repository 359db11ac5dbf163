import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  commitBranchState,
  derivedNode,
  missingArtifacts,
  nodeArtifacts,
  readBranchState,
  stateFilePath,
} from '../../../src/work-item/branch-state';
import { parseWorkItemRef } from '../../../src/work-item/ref';
import { DEFAULT_PROCESS_GRAPH, type ProcessGraph } from '../../../src/config/process-graph';

const ITEM = 'github:octo/repo#7';
const ref = parseWorkItemRef(ITEM);

describe('derivedNode: where a work item is, from its branch', () => {
  const none = () => false;
  const all = () => true;

  it('the state file names the node, when it is a node of this graph and no terminal', () => {
    expect(derivedNode(DEFAULT_PROCESS_GRAPH, { node: 'spec-approval' }, none)).toBe('spec-approval');
    expect(derivedNode(DEFAULT_PROCESS_GRAPH, { node: 'implement' }, none)).toBe('implement');
    expect(derivedNode(DEFAULT_PROCESS_GRAPH, { node: 'cleanup' }, all)).toBeNull();
    expect(derivedNode(DEFAULT_PROCESS_GRAPH, { node: 'done' }, all)).toBeNull();
    expect(derivedNode(DEFAULT_PROCESS_GRAPH, { node: 'gone' }, all)).toBeNull();
  });

  it('without a state file, the artifacts walk the start node along its success edges', () => {
    expect(derivedNode(DEFAULT_PROCESS_GRAPH, null, none)).toBeNull();
    // spec's artifact is there: its success edge leads to the gate, and a gate has no artifacts to walk on
    expect(derivedNode(DEFAULT_PROCESS_GRAPH, null, (node) => node === 'spec')).toBe('spec-approval');
    const chain: ProcessGraph = {
      start: 'a',
      nodes: {
        a: { kind: 'agent', prompt: 'a', artifacts: ['a.md'], on: { success: 'b' } },
        b: { kind: 'agent', prompt: 'b', artifacts: ['b.md'], on: { success: 'c' } },
        c: { kind: 'agent', prompt: 'c', artifacts: [], on: { success: 'done' } },
        done: { kind: 'terminal', terminal: 'done' },
        cleanup: { kind: 'terminal', terminal: 'cleanup' },
      },
    };
    expect(derivedNode(chain, null, (node) => node === 'a')).toBe('b');
    expect(derivedNode(chain, null, all)).toBe('c');
    // a loop of nodes whose artifacts are all there ends where it began
    const loop: ProcessGraph = {
      ...chain,
      nodes: { ...chain.nodes, b: { kind: 'agent', prompt: 'b', artifacts: ['b.md'], on: { success: 'a' } } },
    };
    expect(derivedNode(loop, null, all)).toBeNull();
  });
});

describe('the state file and the artifacts in a checkout', () => {
  function repo(): { dir: string; origin: string } {
    const root = mkdtempSync(join(tmpdir(), 'branch-state-'));
    const origin = join(root, 'origin.git');
    const dir = join(root, 'work');
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    mkdirSync(origin);
    git(origin, 'init', '--quiet', '--bare', '-b', 'main');
    git(root, 'clone', '--quiet', origin, dir);
    git(dir, 'checkout', '--quiet', '-b', 'loop/x');
    return { dir, origin };
  }

  it('names the artifacts with {id} filled in, and finds the missing ones', () => {
    expect(nodeArtifacts(DEFAULT_PROCESS_GRAPH, 'spec', ITEM, '7')).toEqual(['docs/specs/7/spec.md']);
    expect(nodeArtifacts(DEFAULT_PROCESS_GRAPH, 'spec-approval', ITEM, '7')).toEqual([]);
    const { dir } = repo();
    expect(missingArtifacts(dir, ['docs/specs/7/spec.md'])).toEqual(['docs/specs/7/spec.md']);
    mkdirSync(join(dir, 'docs/specs/7'), { recursive: true });
    writeFileSync(join(dir, 'docs/specs/7/spec.md'), '# spec\n');
    expect(missingArtifacts(dir, ['docs/specs/7/spec.md'])).toEqual([]);
  });

  it('commits the state file with the artifacts on the branch and pushes it (identity or none)', async () => {
    const { dir, origin } = repo();
    mkdirSync(join(dir, 'docs/specs/7'), { recursive: true });
    writeFileSync(join(dir, 'docs/specs/7/spec.md'), '# spec\n');
    writeFileSync(join(dir, 'unrelated.txt'), 'not committed\n');
    const state = {
      schema_version: 1 as const,
      work_item: ITEM,
      node: 'spec-approval',
      previous: 'spec',
      at: new Date().toISOString(),
    };
    // no user.email anywhere: the commit uses the-loop's own identity rather than failing
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    };
    const warnings = await commitBranchState(
      { path: dir, branch: 'loop/x' },
      ref,
      state,
      ['docs/specs/7/spec.md', 'docs/specs/7/absent.md'],
      { env },
    );
    expect(warnings).toEqual([]);
    const show = (what: string) =>
      execFileSync('git', ['show', what], {
        cwd: origin,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    expect(JSON.parse(show(`loop/x:${stateFilePath(ref)}`))).toMatchObject({
      node: 'spec-approval',
      previous: 'spec',
    });
    expect(show('loop/x:docs/specs/7/spec.md')).toBe('# spec\n');
    expect(() => show('loop/x:unrelated.txt')).toThrow();
    expect(readBranchState(dir, ref)).toMatchObject({ node: 'spec-approval' });
  });

  it('a broken state file is no pointer', () => {
    const { dir } = repo();
    mkdirSync(join(dir, 'docs/specs/7'), { recursive: true });
    writeFileSync(join(dir, stateFilePath(ref)), '{"node": ');
    expect(readBranchState(dir, ref)).toBeNull();
  });
});
