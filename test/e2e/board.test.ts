import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { writeRecord } from '../../src/work-item/registry';
import { workItemDirs } from '../../src/work-item/paths';
import { configSchema } from '../../src/config/schema';
import { launchChromium } from '../support/browser';
import { startBoardProcess, type BoardProcess } from '../support/board-process';
import { runCli } from '../support/cli';
import { sessionRecord } from '../support/registry-record';
import { waitFor } from '../support/wait';

const TOKEN = 'board-e2e-token-never-printed-0123';

/** A state directory with a config of its own (no Temporal is needed to read the board). */
function stateDirectory(): { stateDir: string; env: NodeJS.ProcessEnv } {
  const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-board-'));
  const configFile = join(stateDir, 'the-loop.yaml');
  writeFileSync(configFile, 'temporal:\n  taskQueue: board-e2e\n');
  return { stateDir, env: { THE_LOOP_STATE_DIR: stateDir, THE_LOOP_CONFIG: configFile } };
}

function writeWaiting(stateDir: string, ref: string, reason: 'permission' | 'gate', detail: string): string {
  const dirs = workItemDirs(configSchema.parse({}), stateDir);
  mkdirSync(dirs.registryDir, { recursive: true });
  const record = sessionRecord(ref, [], null);
  const waiting = { reason, detail, since: new Date().toISOString() };
  // run by the worker of host build-box-2 (the config's task queue is board-e2e)
  writeRecord(dirs, { ...record, host_queue: 'board-e2e.host.build-box-2', waiting });
  return `w-${record.slug}`;
}

describe('the board in a browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe('on loopback, without a token', () => {
    let board: BoardProcess;
    let stateDir: string;
    let firstRow: string;
    let evil: Server;
    let evilUrl: string;

    beforeAll(async () => {
      const dir = stateDirectory();
      stateDir = dir.stateDir;
      firstRow = writeWaiting(stateDir, 'github:octo/repo#1', 'permission', 'Bash: echo <b>hi</b>');
      board = await startBoardProcess(['--port', '0'], dir.env);
      // another site, whose page posts to the board as a forged cross-site request would
      evil = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          `<!doctype html><form id="f" method="post" action="${board.url}action">` +
            `<input name="row" value="${firstRow}"><input name="action" value="stop"><input name="csrf" value="guess"></form>` +
            `<script>document.getElementById('f').submit()</script>`,
        );
      });
      await new Promise<void>((resolve) => evil.listen(0, '127.0.0.2', resolve));
      evilUrl = `http://127.0.0.2:${(evil.address() as AddressInfo).port}/`;
    });

    afterAll(async () => {
      await board?.stop();
      await new Promise((resolve) => evil?.close(resolve));
    });

    it('shows what waits, escaped, and a new waiting session appears without a reload', async () => {
      const page = await browser.newPage();
      await page.goto(board.url);
      const needs = page.locator('#list-needs');
      await expect(needs.locator(`#row-${firstRow}`).innerText()).resolves.toContain('Bash: echo <b>hi</b>');
      await expect(needs.locator(`#row-${firstRow}`).innerText()).resolves.toContain('build-box-2');
      // a mark the page would lose on a reload
      await page.evaluate('window.mark = 42');
      const second = writeWaiting(stateDir, 'github:octo/repo#2', 'gate', 'approve the plan?');
      await waitFor('the new row', async () => (await needs.locator(`#row-${second}`).count()) === 1, 30_000);
      await expect(page.locator(`#row-${second}`).innerText()).resolves.toContain('approve the plan?');
      await expect(page.locator(`#row-${second} button`, { hasText: 'Approve' }).count()).resolves.toBe(1);
      expect(await page.evaluate('window.mark')).toBe(42);
      expect(await page.locator('[data-count="needs"]').innerText()).toBe('(2)');
      // keyboard: j moves to the first session's link
      await page.keyboard.press('j');
      expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe(
        'github:octo/repo#1',
      );
      await page.close();
    });

    it('refuses a forged cross-site POST', async () => {
      const page = await browser.newPage();
      const refused = page.waitForResponse((r) => r.url() === `${board.url}action`);
      await page.goto(evilUrl);
      const response = await refused;
      expect(response.status()).toBe(403);
      expect(await response.text()).toMatch(/^refused: /);
      await page.close();
      // and one from the board's own page without its token is refused too
      const status = await fetch(`${board.url}action`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `row=${firstRow}&action=stop`,
      }).then((r) => r.status);
      expect(status).toBe(403);
      expect(board.output()).toMatch(/refused a state-changing request/);
    });

    it('answers only to loopback names (DNS rebinding)', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(board.url, { headers: { host: 'attacker.example' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(421);
    });
  });

  describe('off loopback', () => {
    it('will not start without a token', async () => {
      const { env } = stateDirectory();
      const result = await runCli(['board', '--host', '0.0.0.0', '--port', '0'], { env });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/not loopback: set board\.token/);
    });

    it('requires the token, given once through the link `board --link` prints', async () => {
      const { stateDir, env } = stateDirectory();
      const tokenEnv = { ...env, THE_LOOP_BOARD_TOKEN: TOKEN };
      writeWaiting(stateDir, 'github:octo/repo#3', 'permission', 'Edit: src/a.ts');
      const ready = join(stateDir, 'board.ready.json');
      const board = await startBoardProcess(
        ['--host', '0.0.0.0', '--port', '0', '--ready-file', ready],
        tokenEnv,
      );
      try {
        const port = new URL(board.url).port;
        const local = `http://127.0.0.1:${port}/`;
        const context = await browser.newContext();
        const page = await context.newPage();
        const denied = await page.goto(local);
        expect(denied?.status()).toBe(401);
        expect(await page.innerText('body')).toContain('the-loop board --link');

        const link = await runCli(['board', '--link'], { env: tokenEnv });
        expect(link.code).toBe(0);
        const printed = link.stdout.trim();
        expect(printed).not.toContain(TOKEN);
        const url = new URL(printed);
        const loginAt = `${local.replace(/\/$/, '')}${url.pathname}${url.search}`;
        const loggedIn = await page.goto(loginAt);
        expect(loggedIn?.status()).toBe(200);
        expect(await page.innerText('#list-needs')).toContain('github:octo/repo#3');
        // the link works once; a browser without the cookie still sees nothing
        const other = await browser.newContext();
        const again = await (await other.newPage()).goto(loginAt);
        expect(again?.status()).toBe(403);
        expect(board.output()).not.toContain(TOKEN);
        await other.close();
        await context.close();
      } finally {
        await board.stop();
      }
    });
  });
});
