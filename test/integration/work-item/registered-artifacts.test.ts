import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runningWorkItem } from '../../../src/temporal/work-items';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import { claudeSessionId } from '../../support/ids';
import { setupWorkItemEnv, workflowStatus, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

jest.setTimeout(600_000);

const ITEM = 'github:octo/repo#95';
const SPEC = join('docs', 'specs', '95', 'spec.md');

/**
 * A graph that starts at a gate, so that `start` spawns nothing: the registered conversation is never launched
 * (no claude runs), and the session is paused before the spec node's turn is queued, so nothing is delivered.
 */
const GRAPH = {
  start: 'ready',
  nodes: {
    ready: { kind: 'gate', on: { approve: 'spec' } },
    spec: {
      kind: 'agent',
      prompt: 'write the spec',
      artifacts: ['docs/specs/{id}/spec.md'],
      on: { success: 'review' },
    },
    review: { kind: 'gate', on: { approve: 'done', reject: 'spec' } },
    done: { kind: 'terminal', terminal: 'done' },
    cleanup: { kind: 'terminal', terminal: 'cleanup' },
  },
};

describe("a registered conversation's node artifacts are looked for in its own directory", () => {
  let env: WorkItemTestEnv;
  beforeAll(async () => {
    env = await setupWorkItemEnv({ yaml: { process: GRAPH } });
  });
  afterAll(async () => env.dispose());

  async function node(): Promise<string | null> {
    const live = await runningWorkItem(env.client, ITEM);
    if (!live) throw new Error(`${ITEM} has no running workflow`);
    return (await live.query(statusQuery)).node ?? null;
  }

  it('the spec is refused while missing there, named by its full path, and succeeds once written there', async () => {
    const conversation = join(env.dir, 'conversation');
    mkdirSync(conversation);
    const cli = (...args: string[]) => env.cli(['sessions', ...args]);
    const registered = await cli(
      'register',
      '--work-item',
      ITEM,
      '--harness',
      'claude',
      '--harness-session-id',
      claudeSessionId(95),
      '--cwd',
      conversation,
    );
    expect(registered.code).toBe(0);
    expect((await cli('start', '--work-item', ITEM, '--no-comment')).code).toBe(0);
    expect(await node()).toBe('ready');
    expect((await cli('pause', '--work-item', ITEM, '--no-comment')).code).toBe(0);
    expect((await cli('answer', '--work-item', ITEM, 'approve')).code).toBe(0);
    expect(await node()).toBe('spec');
    expect(env.record(ITEM)).toMatchObject({ cwd: conversation, checkout: null, tmux: null });

    const refused = await cli('outcome', '--work-item', ITEM, 'success');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`'spec' has not left ${join(conversation, SPEC)}`);
    expect(await node()).toBe('spec');

    mkdirSync(join(conversation, 'docs', 'specs', '95'), { recursive: true });
    writeFileSync(join(conversation, SPEC), '# the spec\n');
    const done = await cli('outcome', '--work-item', ITEM, 'success');
    // (its stderr warns that the phase label could not be set: this test's worker has no GitHub token)
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`${ITEM}: spec success → review`);
    expect(await node()).toBe('review');

    expect((await cli('close', '--work-item', ITEM)).code).toBe(0);
    await waitFor(
      'the workflow to complete',
      async () => (await workflowStatus(env.client, ITEM)) === 'COMPLETED',
      180_000,
    );
  });
});
