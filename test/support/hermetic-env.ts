import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { findExecutable } from '../../src/harness/find-executable';

const REPO = resolve(__dirname, '..', '..');

/**
 * The system directories a test's processes may use besides the run's own bin/: the shell, coreutils, tmux, git,
 * Chromium. Not /usr/local/bin, ~/.cargo/bin, ~/.pyenv/shims or anything else of the developer's shell: a
 * version-manager shim there takes a lock in the developer's HOME that two suites running at once fight over
 * (pyenv's "cannot rehash" failed an agent's command in a pane that way).
 */
const SYSTEM_PATH = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** What every process of a test run reaches through PATH, each a symlink in the run's bin/. */
function runBinaries(env: NodeJS.ProcessEnv): Map<string, string> {
  const binaries = new Map<string, string>([
    ['node', process.execPath],
    ['the-loop', join(REPO, 'bin', 'the-loop.js')],
    ['loopy', join(REPO, 'bin', 'loopy')],
    ['claude', join(REPO, 'node_modules', '.bin', 'claude')],
    ['codex', join(REPO, 'node_modules', '.bin', 'codex')],
  ]);
  // npm and npx beside this node (the install test packs and installs the package), git and tmux wherever the
  // machine has them, and go for building a pinned Temporal binary a cache lacks.
  for (const name of ['npm', 'npx']) binaries.set(name, join(dirname(process.execPath), name));
  for (const name of ['git', 'tmux', 'go']) {
    const found = findExecutable(name, env);
    if (found) binaries.set(name, found);
  }
  return binaries;
}

/**
 * Puts this process in the environment of a test run, once, in jest's global setup; it is inherited by every test file, worker, harness
 * and tmux pane the run starts: PATH is the run's own bin/ (node, the-loop, loopy, the real claude and codex, git,
 * tmux, npm, go) and the system directories, HOME is a private directory of the run, tmux's sockets live in the run's
 * directory. So two suites running at once (two clones) share no lock file, HOME, state directory or tmux server,
 * and neither reads the developer's shell setup. Caches that are the machine's, not a run's, stay where they are:
 * the pinned Temporal binaries (XDG_CACHE_HOME), npm's package cache and Go's module cache.
 */
export function enterHermeticEnvironment(runDir: string): void {
  const env = process.env;
  // A developer's own service, cluster or configuration must not be the one a test talks to.
  for (const name of Object.keys(env)) if (LEAKING.test(name)) delete env[name];
  Object.assign(env, hermeticEnvironment(runDir, env));
}

/** Variables of a developer's shell that would point a test at their own Temporal, configuration or state. */
const LEAKING =
  /^(TEMPORAL_(ADDRESS|NAMESPACE|API_KEY|TLS_.*|PROFILE|CONFIG_FILE)|THE_LOOP_(CONFIG|STATE_DIR))$/;

function hermeticEnvironment(runDir: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const bin = join(runDir, 'bin');
  const home = join(runDir, 'home');
  const tmuxDir = join(runDir, 'tmux');
  for (const dir of [bin, home, tmuxDir]) mkdirSync(dir, { recursive: true });
  for (const [name, target] of runBinaries(env)) {
    if (!existsSync(target))
      throw new Error(`the test run needs ${name} at ${target}: run \`npm ci\` (and install git and tmux)`);
    symlinkSync(target, join(bin, name));
  }
  const realHome = env.HOME || homedir();
  // Commits in tests need an identity; a developer's own ~/.gitconfig (signing, hooks, aliases) must not apply.
  writeFileSync(
    join(home, '.gitconfig'),
    '[user]\n\tname = the-loop tests\n\temail = tests@the-loop.invalid\n[init]\n\tdefaultBranch = main\n',
  );
  return {
    PATH: [bin, ...SYSTEM_PATH].join(delimiter),
    HOME: home,
    TMUX_TMPDIR: tmuxDir,
    XDG_CACHE_HOME: env.XDG_CACHE_HOME || join(realHome, '.cache'),
    npm_config_cache: env.npm_config_cache || join(realHome, '.npm'),
    GOPATH: env.GOPATH || join(realHome, 'go'),
    // The developer's own configuration and state of the-loop must not leak into a run.
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    // Every `start` would otherwise serve a board on 8780, the suite's parallel files fighting for it: the board's
    // own tests turn it on, each on a port of its own.
    THE_LOOP_BOARD_PORT: '0',
  };
}
