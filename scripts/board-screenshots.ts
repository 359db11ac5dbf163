/**
 * The board's screenshots in the docs, made again: `npm run screenshots`.
 *
 * Writes a made-up set of sessions (scripts/board-screenshots/scene.ts) into a temporary state directory through
 * the project's own writers, gives one of them a real tmux pane, starts the real `the-loop board --port 0` on it,
 * and saves what Chromium shows at 1280×800 in the light colour scheme: the board (docs/images/board.png) and one
 * session's own page, reached by its row's link (docs/images/board-session.png). The scene's times are fixed, so a
 * second run draws the same pictures. The board, the tmux server, Chromium and the directory go however it ends
 * (scripts/board-screenshots/teardown.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { configSchema } from '../src/config/schema';
import { workItemDirs } from '../src/work-item/paths';
import { parseWorkItemRef, refSlug, tmuxSessionName } from '../src/work-item/ref';
import { startBoard } from './board-screenshots/board-child';
import { capture, launchChromium, missingChromium } from './board-screenshots/capture';
import { paneServer, tmuxEnv } from './board-screenshots/pane';
import { CONFIG, FEATURED, PANE_SCREEN, TMUX_SOCKET, WORK_ITEMS } from './board-screenshots/scene';
import { seedGoalSession } from './board-screenshots/seed-goal';
import { seedWorkItems } from './board-screenshots/seed-work-items';
import {
  atTeardown,
  checkpoint,
  exitCodeFor,
  handleStopSignals,
  Stopped,
  teardown,
  unlessStopped,
} from './board-screenshots/teardown';

const REPO = resolve(__dirname, '..', '..');
const IMAGES = join(REPO, 'docs', 'images');
/**
 * Not a random name: the session page shows the session directory, which would otherwise differ on every run. A
 * second run at the same time is refused rather than sharing it.
 */
const WORK_DIR = join(tmpdir(), 'the-loop-screenshots');

async function main(): Promise<void> {
  const missing = missingChromium();
  if (missing) throw new Error(missing);
  try {
    mkdirSync(WORK_DIR);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new Error(`${WORK_DIR} exists: another run is under way, or a killed one left it (remove it)`, {
      cause: error,
    });
  }
  atTeardown(() => rmSync(WORK_DIR, { recursive: true, force: true }));
  const dirs = {
    state: join(WORK_DIR, 'state'),
    project: join(WORK_DIR, 'project'),
    home: join(WORK_DIR, 'home'),
    tmux: join(WORK_DIR, 'tmux'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const configFile = join(WORK_DIR, 'the-loop.yaml');
  writeFileSync(configFile, stringify(CONFIG));

  await seedWorkItems(workItemDirs(configSchema.parse(CONFIG), dirs.state), WORK_ITEMS);
  seedGoalSession(dirs.project);
  checkpoint();

  const featured = parseWorkItemRef(FEATURED);
  const panes = paneServer(dirs.tmux, TMUX_SOCKET);
  atTeardown(() => panes.stop());
  await unlessStopped(panes.start(tmuxSessionName(featured), PANE_SCREEN));

  const board = startBoard(REPO, dirs.project, {
    ...tmuxEnv(dirs.tmux),
    HOME: dirs.home,
    TZ: 'UTC',
    THE_LOOP_STATE_DIR: dirs.state,
    THE_LOOP_CONFIG: configFile,
  });
  atTeardown(() => board.stop());
  const url = await unlessStopped(board.url);

  const browser = await launchChromium();
  atTeardown(() => browser.close());
  checkpoint();
  mkdirSync(IMAGES, { recursive: true });
  const shots = { board: join(IMAGES, 'board.png'), session: join(IMAGES, 'board-session.png') };
  await unlessStopped(capture(browser, url, `w-${refSlug(featured)}`, shots));
  console.log(`board-screenshots: wrote ${shots.board} and ${shots.session}`);
}

handleStopSignals();
void main()
  .catch((error: unknown) => {
    // after a signal, the run says nothing more than the shell does
    if (!(error instanceof Stopped))
      console.error(`board-screenshots: ${(error as Error).message.split('\n')[0]}`);
    process.exitCode = exitCodeFor(error);
  })
  .finally(() => teardown());
