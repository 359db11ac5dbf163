import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../src/config/schema';
import { EXIT } from '../../../src/errors';
import { refusal } from '../../support/cli-refusal';
import type { SessionsContext } from '../../../src/use-cases/context';
import { lastTurn, showSession } from '../../../src/use-cases/show';
import { workItemDirs } from '../../../src/work-item/paths';
import { updatePortable } from '../../../src/work-item/portable';
import { writeRecord } from '../../../src/work-item/registry';
import type { RegistryRecord } from '../../../src/work-item/schemas';
import { sessionRecord } from '../../support/registry-record';

const ITEM = 'github:octo/repo#7';
const TMUX = {
  socket: 'the-loop',
  session: 'octo-repo-7',
  created_at: '2026-12-02T08:00:00.000Z',
  command: ['claude'],
};

function context(config: Record<string, unknown> = {}): SessionsContext {
  return { config: configSchema.parse(config), stateDir: mkdtempSync(join(tmpdir(), 'uc-show-')) };
}

/** A turn's result.json in iterations/<name>/, as the harness activity leaves it (or torn). */
function turn(sessionDir: string, name: string, result: { success: boolean; text: string } | 'torn'): void {
  const dir = join(sessionDir, 'iterations', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'result.json'),
    result === 'torn'
      ? '{"success": tr'
      : JSON.stringify({
          ...result,
          error: result.success ? null : 'exit 1',
          harness_run_id: null,
          harness_output_dir: null,
        }),
  );
}

function record(ctx: SessionsContext, extra: Partial<RegistryRecord>): RegistryRecord {
  const written = { ...sessionRecord(ITEM, ['github:octo/repo#12'], '/w/repo'), ...extra };
  writeRecord(workItemDirs(ctx.config, ctx.stateDir), written);
  return written;
}

describe('lastTurn', () => {
  it('is the newest turn that left a result; a torn newer one gives way to the one before', () => {
    const dir = mkdtempSync(join(tmpdir(), 'uc-show-session-'));
    expect(lastTurn(dir)).toBeNull();
    turn(dir, '0001_issue_opened', { success: true, text: 'planned' });
    turn(dir, '0002_comment', { success: false, text: 'half done' });
    expect(lastTurn(dir)).toEqual({ iteration: 2, success: false, reply: 'half done', error: 'exit 1' });
    turn(dir, '0003_comment', 'torn');
    // a turn still running has no result yet; neither counts
    mkdirSync(join(dir, 'iterations', '0004_comment'));
    mkdirSync(join(dir, 'iterations', 'notes'));
    expect(lastTurn(dir)?.iteration).toBe(2);
    // ordered as numbers are written (zero-padded), not as they were created
    turn(dir, '0010_comment', { success: true, text: 'tenth' });
    expect(lastTurn(dir)).toMatchObject({ iteration: 10, reply: 'tenth' });
  });
});

describe('showSession', () => {
  it('shows one session from files alone: its wait, node, last turn, how to attach, and its Web UI page', async () => {
    const ctx = context();
    const sessionDir = mkdtempSync(join(tmpdir(), 'uc-show-session-'));
    turn(sessionDir, '0001_issue_opened', { success: true, text: 'done' });
    const written = record(ctx, {
      session_dir: sessionDir,
      harness_session_id: 'conv-1',
      waiting: { reason: 'permission', detail: 'Bash(rm)', since: '2026-12-02T09:00:00.000Z' },
      tmux: TMUX,
    });
    const dirs = workItemDirs(ctx.config, ctx.stateDir);
    await updatePortable(dirs, written.slug, ITEM, (p) => ({
      ...p,
      graph: { node: 'review', at: '2026-12-02T08:30:00.000Z' },
    }));

    const view = await showSession(ctx, 'github:Octo/Repo#7');
    expect(view).toMatchObject({
      work_item: ITEM,
      status: 'waiting: permission',
      waiting: { reason: 'permission', detail: 'Bash(rm)' },
      node: 'review',
      harness: 'claude',
      conversation: 'conv-1',
      pull_requests: ['github:octo/repo#12'],
      branch: null,
      cwd: '/w/repo',
      last_turn: { iteration: 1, success: true, reply: 'done', error: null },
      attach: `the-loop sessions attach --work-item ${ITEM}`,
      web_ui: `http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(`work-item/${ITEM}`)}`,
    });
  });

  it('a closed session shows its status, no wait, nothing to attach to; a cluster has no known Web UI', async () => {
    const ctx = context({ temporal: { address: 'temporal.example.com:7233' } });
    record(ctx, {
      status: 'closed',
      waiting: { reason: 'question', detail: 'which?', since: '2026-12-02T09:00:00.000Z' },
      tmux: TMUX,
    });
    expect(await showSession(ctx, ITEM)).toMatchObject({
      status: 'closed',
      waiting: null,
      node: null,
      last_turn: null,
      attach: null,
      web_ui: null,
    });
  });

  it('a work item this machine holds no record of is a failure (exit 1); a malformed ref is bad input', async () => {
    const ctx = context();
    const missing = await refusal(showSession(ctx, ITEM));
    expect(missing).toMatchObject({
      exitCode: EXIT.failure,
      message: `${ITEM}: no session record on this machine`,
    });
    const malformed = await refusal(showSession(ctx, 'octo/repo#7'));
    expect(malformed).toMatchObject({ exitCode: EXIT.usage });
  });
});
