import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readExit } from '../../../src/activities/recover-run';
import { EXIT_FILE } from '../../../src/harness/supervisor';
import { compiledSupervisorPath, supervisorOf, SUPERVISORS } from '../../support/supervisors';
import { fillUp, smallTmpfs } from '../../support/small-tmpfs';
import { waitFor } from '../../support/wait';

/**
 * A harness that finishes while the disk is full still leaves its exit.json, so recovery finds the turn finished
 * (issue 27 §5): the supervisor, run as the launcher runs it, on a small tmpfs that fills up while the harness runs.
 */
describe.each(SUPERVISORS)('the %s supervisor under a full disk', (kind) => {
  const cleanups: (() => void)[] = [];

  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });

  test('a harness that ends after the disk filled up still has its exit.json, which recovery reads', async () => {
    if (process.getuid?.() !== 0) throw new Error('this test mounts a 2 MB tmpfs: run it as root');
    const disk = smallTmpfs(cleanups);
    // The harness's cues live off the full disk: creating them there could fail too.
    const cues = mkdtempSync(join(tmpdir(), 'loopy-cues-'));
    const started = join(cues, 'started');
    const release = join(cues, 'go');
    cleanups.push(() => writeFileSync(release, '')); // a failed test's harness ends too
    const stdout = openSync(join(disk, 'stdout.txt'), 'w');
    const harness = `echo '{"type":"result"}'; : > ${started}; while [ ! -f ${release} ]; do sleep 0.05; done; exit 0`;
    const compiled = compiledSupervisorPath();
    const supervisor = spawn(
      ...supervisorOf(kind, compiled, join(disk, EXIT_FILE), '', '/bin/sh', '-c', harness),
      {
        detached: true,
        stdio: ['ignore', stdout, 'ignore'],
      },
    );
    closeSync(stdout);
    const ended = new Promise<number | null>((resolve) => supervisor.once('exit', (code) => resolve(code)));

    await waitFor('the harness to start', () => existsSync(started), 20_000);
    expect(readExit(disk)).toBeNull(); // its space is taken, and it holds no verdict yet
    fillUp(disk);
    writeFileSync(release, '');

    expect(await ended).toBe(0);
    expect(readExit(disk)).toMatchObject({ code: 0, signal: null });
    expect(readFileSync(join(disk, 'stdout.txt'), 'utf8')).toBe('{"type":"result"}\n');
  });
});
