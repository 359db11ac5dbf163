import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, driven through the DevTools protocol by playwright-core (no browser download of its own). */
export const CHROMIUM = process.env.THE_LOOP_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the Web UI test needs Chromium at ${CHROMIUM}: install it with \`apt-get install chromium\` ` +
        '(or point THE_LOOP_CHROMIUM at a Chromium binary)',
    );
  }
  // --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}
