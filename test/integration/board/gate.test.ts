import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { runningWorkItem } from '../../../src/temporal/work-items';
import { statusQuery } from '../../../src/workflows/work-item/messages';
import { parseWorkItemRef, refSlug } from '../../../src/work-item/ref';
import { startBoardProcess, type BoardProcess } from '../../support/board-process';
import { launchChromium } from '../../support/browser';
import { assertFreshBuild } from '../../support/worker-processes';
import { isNodeCommand, setupWorkItemEnv, type WorkItemTestEnv } from '../work-item/helpers';
import { waitFor } from '../../support/wait';

// Every step is a CLI process, a click or a wait for a condition; none is timed.
jest.setTimeout(600_000);

const ITEM = 'github:octo/repo#72';
const ROW = `w-${refSlug(parseWorkItemRef(ITEM))}`;

/**
 * A work item at its spec-approval gate (real Temporal, tmux, git and claude against the mock Anthropic API), approved
 * with the board's button in Chromium: the workflow moves to the next node, and the row shows it without a reload.
 */
describe('a gate approved from the board moves the process graph', () => {
  let env: WorkItemTestEnv;
  let board: BoardProcess;
  let browser: Browser;

  beforeAll(async () => {
    assertFreshBuild();
    env = await setupWorkItemEnv({ yaml: {} });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await board?.stop();
    spawnSync('tmux', ['-L', env.socket, 'kill-server']);
    await env?.dispose();
  });

  async function node(): Promise<string | null> {
    const handle = await runningWorkItem(env.client, ITEM);
    return handle ? ((await handle.query(statusQuery)).node ?? null) : null;
  }

  it('approves from the board, and the row moves on to the next node', async () => {
    const start = await env.cli(['sessions', 'start', '--work-item', ITEM, '--no-comment']);
    expect(start.code).toBe(0);
    await env.agentCall((prompt) => isNodeCommand(prompt, ITEM, 'spec'));
    const checkout = env.record(ITEM)?.checkout?.path ?? '';
    mkdirSync(join(checkout, 'docs', 'specs', '72'), { recursive: true });
    writeFileSync(join(checkout, 'docs', 'specs', '72', 'spec.md'), '# spec of 72\n');
    const done = await env.cli(['sessions', 'outcome', '--work-item', ITEM, 'success']);
    expect(done.code).toBe(0);
    await waitFor(
      'the gate in the registry record',
      () => env.record(ITEM)?.waiting?.reason === 'gate',
      180_000,
    );

    board = await startBoardProcess(['--port', '0'], env.cliEnv, env.dir);
    const page = await browser.newPage();
    await page.goto(board.url);
    const row = page.locator(`#list-needs #row-${ROW}`);
    await waitFor('the gate on the board', async () => (await row.count()) === 1, 180_000);
    expect(await row.innerText()).toContain('spec-approval');
    await row.getByRole('button', { name: 'Approve' }).click();
    const notice = await waitFor(
      'the answer to the click',
      async () => {
        const text = await page.locator('#notice').innerText();
        return text !== '' && text !== 'Sending…' ? text : null;
      },
      180_000,
    );
    expect(`${notice}\n${board.output()}`).toMatch(/approved spec-approval → /);
    expect(await node()).not.toBe('spec-approval');
    // the row leaves Needs you and shows its new node, without a reload
    const moved = page.locator(`#list-running #row-${ROW}`);
    await waitFor('the row at its next node', async () => (await moved.count()) === 1, 60_000);
    expect(await moved.innerText()).toContain((await node()) ?? '');
    expect(board.output()).toMatch(/board: approve github:octo\/repo#72 by \S+: /);
  });
});
