import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { deliverToWorkItem } from '../../../src/temporal/work-items';
import { parseWorkItemRef, refSlug } from '../../../src/work-item/ref';
import { startBoardProcess, type BoardProcess } from '../../support/board-process';
import { launchChromium } from '../../support/browser';
import {
  lastToolResults,
  runBashReply,
  startMockAnthropic,
  type MockAnthropic,
} from '../../support/mock-anthropic';
import { setupRealClaudeEnv, workItemEvents, type WorkItemTestEnv } from '../work-item/helpers';
import { waitFor } from '../../support/wait';

// Every step is a delivery, a click or a wait for a condition; none is timed.
jest.setTimeout(600_000);

const KEY = `sk-ant-api03-board-test-${randomUUID()}`;
const ITEM = 'github:octo/repo#1431';
const ROW = `w-${refSlug(parseWorkItemRef(ITEM))}`;

/**
 * The real claude, hosted in tmux against the mock Anthropic API, asks to run a Bash command; a person allows it
 * with the board's button in Chromium: the command runs, and the answer is recorded as from the board.
 */
describe('a permission prompt answered from the board reaches the real claude', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;
  let board: BoardProcess;
  let browser: Browser;

  beforeAll(async () => {
    mock = await startMockAnthropic();
    mock.setRespond((call) => {
      if (lastToolResults(call.body).length > 0) return { text: 'the approved command ran' };
      return runBashReply(call.body) ?? { text: 'nothing to do' };
    });
    env = await setupRealClaudeEnv(mock, KEY);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await board?.stop();
    await env?.dispose();
    await mock?.close();
  });

  it('allow on the board runs the tool; the answer is recorded with via board', async () => {
    board = await startBoardProcess(['--port', '0'], env.cliEnv, env.dir);
    const page = await browser.newPage();
    await page.goto(board.url);
    const marker = join(env.dir, `ran-${randomUUID()}`);
    const text = `please RUN-BASH ${marker}`;
    expect(
      await deliverToWorkItem(env.client, env.queues, ITEM, { id: 'e1', text, source: 'test' }, true),
    ).toBe('started');
    // the prompt appears on the open page, without a reload
    const row = page.locator(`#list-needs #row-${ROW}`);
    await waitFor('the permission prompt on the board', async () => (await row.count()) === 1, 180_000);
    expect(await row.innerText()).toContain(`sh -c 'echo ran > ${marker}'`);
    expect(existsSync(marker)).toBe(false);
    await row.getByRole('button', { name: 'Allow' }).click();
    const notice = await waitFor(
      'the answer to the click',
      async () => {
        const shown = await page.locator('#notice').innerText();
        return shown !== '' && shown !== 'Sending…' ? shown : null;
      },
      180_000,
    );
    expect(notice).toMatch(new RegExp(`^${ITEM.replace(/[#]/g, '\\#')}: allowed `));
    await waitFor('the allowed command to run', () => existsSync(marker), 120_000);
    const answers = workItemEvents(env, ITEM, 'permission.answered').map((e) => [
      e.data?.decision,
      e.data?.via,
    ]);
    expect(answers).toEqual([['allow', 'board']]);
    await waitFor('the row to leave Needs you', async () => (await row.count()) === 0, 60_000);
  });
});
