import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { runCli } from '../support/cli';
import { startTestWorker, testConfig, testServer, uniqueQueue, type TestWorker } from '../support/temporal';
import { waitFor } from '../support/wait';

const GOAL =
  'Add a --json flag to the *status* command\n\nKeep `--format` working:\n```sh\nloopy status --json\n```\n';

/** The texts of the Markdown frames the Web UI renders user metadata into (summary, details, current details). */
async function renderedFrames(page: Page): Promise<string[]> {
  const texts: string[] = [];
  for (const frame of page.frames()) {
    if (!frame.url().includes('/render?')) continue;
    texts.push((await frame.innerText('body').catch(() => '')).trim());
  }
  return texts;
}

describe('the Temporal Web UI shows a goal session as a user reads it', () => {
  let worker: TestWorker;
  let browser: Browser;
  let env: NodeJS.ProcessEnv;
  let cwd: string;
  let sessionId: string;

  beforeAll(async () => {
    const taskQueue = uniqueQueue('webui');
    worker = await startTestWorker({ taskQueue, config: testConfig({ temporal: { taskQueue } }) });
    cwd = mkdtempSync(join(tmpdir(), 'webui-'));
    const configFile = join(cwd, 'the-loop.yaml');
    writeFileSync(configFile, `temporal:\n  taskQueue: ${taskQueue}\nworker:\n  hostId: testhost\n`);
    env = { TEMPORAL_ADDRESS: testServer().address, THE_LOOP_CONFIG: configFile };
    // A turn that lasts until the test stops the session, so the session is running while the browser looks.
    const run = await runCli(
      [
        'run',
        '--goal',
        GOAL,
        '--harness',
        'command',
        '--harness-command',
        'sleep 600',
        '--detach',
        '--cwd',
        cwd,
      ],
      { env, name: 'loopy' },
    );
    expect(run.stderr).toBe('');
    sessionId = run.stdout.trim();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await runCli(['stop', sessionId, '--reason', 'test over'], { env, cwd, name: 'loopy' });
    await browser?.close();
    await worker?.shutdown();
  });

  it('finds the session by its goal in the list, and shows summary, details and current details', async () => {
    const ui = testServer().uiAddress;
    const page = await browser.newPage();
    const query = encodeURIComponent('LoopGoal="json" AND LoopKind="goal"');
    await waitFor(
      'the session in the Web UI list, found by LoopGoal',
      async () => {
        await page.goto(`${ui}/namespaces/default/workflows?query=${query}`);
        await page.waitForLoadState('networkidle').catch(() => undefined);
        return (await page.innerText('body')).includes(sessionId);
      },
      90_000,
      1000,
    );

    await page.goto(`${ui}/namespaces/default/workflows/${sessionId}`);
    await page.getByText('User Metadata').click();
    let frames: string[] = [];
    await waitFor(
      'summary, details and current details rendered',
      async () => {
        frames = await renderedFrames(page);
        // each of the three renders in a frame of its own, and they load one after another
        const all =
          frames.includes('Add a --json flag to the *status* command') &&
          frames.some((t) => t.includes('Keep `--format` working:')) &&
          frames.some((t) => t.startsWith('iteration 1'));
        if (all) return true;
        await page.keyboard.press('r'); // the UI's own "refresh current details"
        return false;
      },
      90_000,
      1000,
    );
    expect(frames).toContain('Add a --json flag to the *status* command');
    expect(
      frames.some((t) => t.includes('loopy status --json') && t.includes('Keep `--format` working:')),
    ).toBe(true);
    expect(frames.find((t) => t.startsWith('iteration 1'))).toMatch(/^iteration 1 · planner · command/);
  });
});
