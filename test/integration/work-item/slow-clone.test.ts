import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import { DEFAULT_ROUTINES } from '../../../src/session/default-routines';
import { realClaudeBin, startMockAnthropic, type MockAnthropic } from '../../support/mock-anthropic';
import { runCli } from '../../support/cli';
import { scriptGoalLoops } from '../../support/scripted-agent';
import { CLAUDE_FORWARDED, setupWorkItemEnv, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

const ITEM = 'github:octo/repo#931';
const TURNS = 3;

// The goal session's turns and the hosted claude's start are real CLI runs on a loaded machine: jest's 120 s is not
// enough (every wait has its own bound).
jest.setTimeout(600_000);

/**
 * The host layer must not hold the worker's event loop: a work item's clone that hangs runs while another session
 * on the same worker takes all its turns (and heartbeats) — the clone is held by a real transport, an ssh command
 * (git config core.sshCommand) that serves the repository only once the test releases it.
 */
describe('a slow clone on the host queue', () => {
  let env: WorkItemTestEnv;
  let mock: MockAnthropic;
  const saved = { ...process.env };

  beforeAll(async () => {
    // One mock for both: the work item hosted on the real interactive claude (a spawn waits for its TUI to be
    // ready), and the goal session's turns, the real claude in print mode. A goal loop's harness gets env.file's
    // names only where harness.claude.env lists them (the credential policy): claude's own, not the dummy proxy.
    mock = await startMockAnthropic();
    scriptGoalLoops(mock, () => ({}));
    env = await setupWorkItemEnv({
      mock,
      yaml: {
        worker: { hostId: 'testhost', heartbeatTimeout: '10s' },
        harness: { claude: { command: realClaudeBin(), env: CLAUDE_FORWARDED } },
      },
    });
    const marks = join(env.dir, 'clone-marks');
    const slowSsh = join(env.dir, 'slow-ssh');
    writeFileSync(
      slowSsh,
      `#!/bin/sh\nmkdir -p ${marks}\ntouch ${marks}/started\nwhile [ ! -e ${marks}/release ]; do sleep 0.2; done\ntouch ${marks}/served\nfor last; do :; done\nexec sh -c "$last"\n`,
      { mode: 0o755 },
    );
    const gitConfig = process.env.GIT_CONFIG_GLOBAL ?? '';
    const originRoot = join(env.dir, 'origin');
    // https://github.com/… now goes over the slow "ssh" to the same bare repository.
    writeFileSync(
      gitConfig,
      readFileSync(gitConfig, 'utf8').replace(
        `[url "${originRoot}/"]`,
        `[url "ssh://slow.invalid${originRoot}/"]`,
      ) + `[core]\n\tsshCommand = ${slowSsh}\n[ssh]\n\tvariant = simple\n`,
    );
  });

  afterAll(async () => {
    await env.dispose();
    await mock.close();
    process.env = saved;
  });

  it(`does not delay another session's ${TURNS} turns on the same worker`, async () => {
    const marks = join(env.dir, 'clone-marks');
    // the start waits for the held clone through all the goal session's turns, then for claude to be ready
    const started = runCli(['sessions', 'start', '--work-item', ITEM, '--no-comment'], {
      env: env.cliEnv,
      cwd: env.dir,
      timeoutMs: 600_000,
    });
    await waitFor('the clone to reach the slow transport', () => existsSync(join(marks, 'started')), 180_000);

    const input = buildSessionInput(env.config, {
      goal: 'turns while a clone runs',
      cwd: mkdtempSync(join(env.dir, 'goal-')),
      harness: 'claude',
      routines: DEFAULT_ROUTINES.map((r) => ({ ...r, harness_options: { command: realClaudeBin() } })),
      maxIterations: TURNS,
    });
    const handle = await startGoalSession(env.client, input);
    const result = await handle.result();
    expect(result.iterations).toBe(TURNS);
    expect(result.stop.kind).toBe('max_iterations');
    // The ordering this test is about: all turns done while the clone is still held.
    expect(existsSync(join(marks, 'served'))).toBe(false);

    // Released, the clone finishes, and the work item's session is spawned in its checkout.
    writeFileSync(join(marks, 'release'), '');
    expect((await started).code).toBe(0);
    const record = await waitFor(
      'the work item to be spawned',
      () => env.record(ITEM)?.tmux ?? null,
      120_000,
    );
    expect(record.session).toBe(env.tmuxName(ITEM));
    expect(existsSync(join(marks, 'served'))).toBe(true);
    expect(env.record(ITEM)?.checkout?.path).toBeTruthy();
  });
});
