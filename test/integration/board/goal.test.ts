import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startGoalSession } from '../../../src/cli/start-session';
import { readJsonIfExists } from '../../../src/session/json-file';
import { sessionPaths } from '../../../src/session/paths';
import { sessionStateFileSchema } from '../../../src/session/schemas';
import { startBoardProcess, type BoardProcess } from '../../support/board-process';
import { launchChromium } from '../../support/browser';
import { useClaudeGoalWorker } from '../../support/claude-goal-worker';
import { messagesText, realClaudeBin } from '../../support/mock-anthropic';
import { testConfig, testServer } from '../../support/temporal';
import { waitFor } from '../../support/wait';

// Every step is a start, a click or a wait for a condition; none is timed.
jest.setTimeout(600_000);

/**
 * A goal session with the real claude (against the mock Anthropic API) ends a turn on a question; a person answers
 * it with the board's Answer button in Chromium, as `loopy update` would: the session resumes, and the next turn
 * reads the answer first.
 */
describe('a goal session that asks, answered from the board', () => {
  const used = useClaudeGoalWorker(testConfig({ harness: { claude: { command: realClaudeBin() } } }));
  let board: BoardProcess;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await board?.stop();
  });

  it('shows the question under Needs you, and Answer resumes the session with the answer', async () => {
    const { client, mock, sessionInput } = used;
    const input = sessionInput('a question for the board', { maxIterations: 2 });
    mock.reply({ text: 'I looked.\n\nShall I rename the module, or leave it?' }, { text: 'renamed it' });
    const before = mock.agentCalls().length;
    const handle = await startGoalSession(client, input);
    await waitFor(
      'the session to wait on its question',
      () => readJsonIfExists(sessionPaths(input.sessionDir).state, sessionStateFileSchema)?.dispatch.asked,
      180_000,
    );

    // the board, run from the session's directory, on the test worker's server and queue
    const configFile = join(input.cwd, 'the-loop.yaml');
    writeFileSync(configFile, `temporal:\n  taskQueue: ${input.taskQueue}\nworker:\n  hostId: testhost\n`);
    const env = {
      TEMPORAL_ADDRESS: testServer().address,
      THE_LOOP_CONFIG: configFile,
      THE_LOOP_STATE_DIR: mkdtempSync(join(tmpdir(), 'the-loop-board-goal-')),
    };
    board = await startBoardProcess(['--port', '0'], env, input.cwd);
    const page = await browser.newPage();
    await page.goto(board.url);
    const row = page.locator(`#list-needs #row-g-${input.sessionId}`);
    await waitFor('the question on the board', async () => (await row.count()) === 1, 60_000);
    expect(await row.innerText()).toContain('Shall I rename the module, or leave it?');
    expect(await row.getByRole('button', { name: 'Resume' }).count()).toBe(0);

    await row.getByLabel('Your answer').fill('rename it to core');
    await row.getByRole('button', { name: 'Answer' }).click();
    const notice = await waitFor('the answer to the click', async () => {
      const shown = await page.locator('#notice').innerText();
      return shown !== '' && shown !== 'Sending…' ? shown : null;
    });
    expect(notice).toBe(`${input.sessionId}: answer sent; the next turn reads it first`);
    const result = await handle.result();
    expect(result.iterations).toBe(2);
    expect(messagesText(mock.agentCalls()[before + 1] ?? null)).toContain('rename it to core');
    expect(readFileSync(sessionPaths(input.sessionDir).events, 'utf8')).toContain('"user_update"');
    await waitFor(
      'the row to move to Recently ended',
      async () => (await page.locator(`#list-ended #row-g-${input.sessionId}`).count()) === 1,
      60_000,
    );
  });
});
