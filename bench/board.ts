/**
 * The board over 1,000 registered sessions, in Debian's Chromium (playwright-core):
 *   - first paint of the board, against the same bytes served by a bare node server in the same run;
 *   - event → on screen: a session's record changes on disk, until its row shows the change in the open page,
 *     against a bare fs.watch of the same directory seeing the same write (the floor for any file-driven page);
 *   - the board's CPU while nothing changes (its fallback read every 5 s).
 *
 *   npm run build && node dist/bench/board.js [--sessions 1000] [--runs 5] [--events 50]
 *
 * Prints figures; never a timed test.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, watch } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { listRecords, writeRecord } from '../src/work-item/registry';
import { seedRegistry } from '../src/work-item/sample-registry';
import { loadAverage, ms, percentile } from './stats';

const CHROMIUM = process.env.THE_LOOP_CHROMIUM ?? '/usr/bin/chromium';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const sleep = (msToWait: number) => new Promise((done) => setTimeout(done, msToWait));

async function startBoard(env: NodeJS.ProcessEnv): Promise<{ url: string; pid: number; stop(): void }> {
  const bin = resolve(__dirname, '..', '..', 'bin', 'the-loop.js');
  const child = spawn(process.execPath, [bin, 'board', '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  for (let waited = 0; waited < 60_000; waited += 50) {
    const url = /serving on (http:\/\/\S+)/.exec(out)?.[1];
    if (url) return { url, pid: child.pid ?? 0, stop: () => child.kill('SIGTERM') };
    if (child.exitCode !== null) throw new Error(`the board exited with ${child.exitCode}: ${out}`);
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error('the board did not listen within 60 s');
}

/** The board's page and its two assets, captured once and served as they are: the floor for the same bytes. */
async function staticCopy(boardUrl: string): Promise<{ url: string; server: Server }> {
  const bodies = new Map<string, { type: string; body: Buffer }>();
  for (const path of ['/', '/board.css', '/board.js']) {
    const response = await fetch(new URL(path, boardUrl));
    bodies.set(path, {
      type: response.headers.get('content-type') ?? 'text/plain',
      body: Buffer.from(await response.arrayBuffer()),
    });
  }
  const server = createServer((req, res) => {
    const found = bodies.get(req.url ?? '/');
    // the live stream is the board's; 204 tells EventSource to give up
    if (!found) return res.writeHead(204).end();
    res.writeHead(200, { 'content-type': found.type }).end(found.body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** Milliseconds from navigation to the first contentful paint (the load event where Chromium reports no paint). */
async function firstPaint(browser: Browser, url: string): Promise<number> {
  const page = await browser.newPage();
  try {
    await page.goto(url, { waitUntil: 'load' });
    // the page's own clock; a string, as the bench is compiled without the DOM's types
    return Number(
      await page.evaluate(`(() => {
        const paint = performance.getEntriesByName('first-contentful-paint')[0];
        const navigation = performance.getEntriesByType('navigation')[0];
        return paint ? paint.startTime : navigation ? navigation.loadEventEnd : NaN;
      })()`),
    );
  } finally {
    await page.close();
  }
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime, the 14th and 15th fields of the whole line
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Records in the page when the row first shows each `bench event <n>`, by the page's Date.now(). */
async function watchSeen(page: Page, rowId: string): Promise<void> {
  await page.evaluate(`(() => {
    const seen = (window.seen = {});
    new MutationObserver(() => {
      const row = document.getElementById(${JSON.stringify(rowId)});
      const marker = /bench event (\\d+)/.exec(row ? row.textContent : '');
      if (marker && seen[marker[1]] === undefined) seen[marker[1]] = Date.now();
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  })()`);
}

async function main(): Promise<void> {
  const sessions = arg('sessions', 1000);
  const runs = arg('runs', 5);
  const events = arg('events', 50);
  if (!existsSync(CHROMIUM))
    throw new Error(`needs Chromium at ${CHROMIUM}: apt-get install chromium, or set THE_LOOP_CHROMIUM`);
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-bench-board-'));
  let browser: Browser | null = null;
  let board: Awaited<ReturnType<typeof startBoard>> | null = null;
  let copy: Server | null = null;
  try {
    const { configFile, dirs } = seedRegistry(dir, sessions);
    const env = { ...process.env, THE_LOOP_CONFIG: configFile, THE_LOOP_STATE_DIR: dir };
    board = await startBoard(env);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    const bare = await staticCopy(board.url);
    copy = bare.server;
    console.log(
      `the board over ${sessions} registered sessions (Chromium, ${runs} page loads each, same run)`,
    );
    const boardPaints: number[] = [];
    const barePaints: number[] = [];
    await firstPaint(browser, board.url); // warm both once: the first Chromium page pays for its own start
    await firstPaint(browser, bare.url);
    for (let i = 0; i < runs; i++) {
      boardPaints.push(await firstPaint(browser, board.url));
      barePaints.push(await firstPaint(browser, bare.url));
    }
    const [boardPaint, barePaint] = [percentile(boardPaints, 50), percentile(barePaints, 50)];
    console.log(
      `first paint: board ${ms(boardPaint)} median, the same bytes from a bare server ${ms(barePaint)}: ${(boardPaint / barePaint).toFixed(2)}× (goal ≤ 1,000 ms)`,
    );

    const record = listRecords(dirs.registryDir, 'active').records[0];
    if (!record) throw new Error('the seeded registry has no active session');
    const rowId = `row-w-${record.slug}`;
    const page = await browser.newPage();
    await page.goto(board.url, { waitUntil: 'load' });
    await watchSeen(page, rowId);
    let watchedAt: number | null = null;
    const watcher = watch(dirs.registryDir, (_event, name) => {
      if (name === `${record.slug}.json`) watchedAt ??= Date.now();
    });
    const toScreen: number[] = [];
    const toWatch: number[] = [];
    for (let n = 0; n < events; n++) {
      watchedAt = null;
      const written = Date.now();
      writeRecord(dirs, {
        ...record,
        waiting: { reason: 'question', detail: `bench event ${n}`, since: new Date(written).toISOString() },
      });
      const seenAt = (marker: number) =>
        (globalThis as unknown as { seen: Record<number, number> }).seen[marker];
      const seen = Number(await (await page.waitForFunction(seenAt, n, { timeout: 30_000 })).jsonValue());
      toScreen.push(seen - written);
      toWatch.push((watchedAt ?? seen) - written);
      await sleep(100); // events apart, as sessions change, not a burst the board would fold into one read
    }
    watcher.close();
    const [screen99, watch99] = [percentile(toScreen, 99), percentile(toWatch, 99)];
    console.log(
      `event → on screen (${events} record changes): p50 ${ms(percentile(toScreen, 50))}, p99 ${ms(screen99)} (goal ≤ 1,000 ms); ` +
        `a bare fs.watch sees the write at p99 ${ms(watch99)}`,
    );

    const before = cpuSeconds(board.pid);
    const idleMs = 15_000;
    await sleep(idleMs);
    const busy = cpuSeconds(board.pid) - before;
    console.log(
      `idle with a page open: the board used ${((busy / (idleMs / 1000)) * 100).toFixed(1)}% of a core over ${idleMs / 1000} s`,
    );
    await page.close();
    console.log(loadAverage());
  } finally {
    await browser?.close();
    board?.stop();
    copy?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench board: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
