// Opens the board in Chromium (Debian's, driven by playwright-core: no browser download) and saves the pictures.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.THE_LOOP_CHROMIUM ?? '/usr/bin/chromium';

const VIEWPORT = { width: 1280, height: 800 };

/** Null when Chromium is there, else the one line that says how to get it. */
export function missingChromium(): string | null {
  if (existsSync(CHROMIUM)) return null;
  return `no Chromium at ${CHROMIUM}: install it with \`apt-get install chromium\`, or point THE_LOOP_CHROMIUM at one`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // --no-sandbox: Chromium refuses its sandbox as root (CI, containers)
    args: ['--no-sandbox', '--disable-gpu'],
    // the script's own signal handlers close it, after the board and tmux: playwright's would exit first
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}

export interface Shots {
  board: string;
  session: string;
}

/** Waits until the page's rows and fonts are in: a picture taken earlier would show an empty list. */
async function settled(page: Page, selector: string): Promise<void> {
  await page.waitForSelector(selector, { state: 'visible', timeout: 30_000 });
  // a string: this code runs in the page, whose DOM types this Node project does not load
  await page.evaluate('document.fonts.ready.then(() => undefined)');
}

/**
 * The whole board at `url` (1280 wide, as tall as its lists), then the whole page of the session whose row is
 * `rowId`, reached by that row's link.
 */
export async function capture(browser: Browser, url: string, rowId: string, shots: Shots): Promise<void> {
  const page = await browser.newPage({ viewport: VIEWPORT, colorScheme: 'light', deviceScaleFactor: 1 });
  await page.goto(url);
  await settled(page, `#row-${rowId}`);
  await page.screenshot({ path: shots.board, fullPage: true, animations: 'disabled', caret: 'hide' });
  await page.click(`#row-${rowId} th a`);
  await settled(page, '#pane');
  await page.screenshot({ path: shots.session, fullPage: true, animations: 'disabled', caret: 'hide' });
  await page.close();
}
