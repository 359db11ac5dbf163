import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../../src/service/dev-server';
import { supervisorFileSchema } from '../../src/service/supervisor-file';
import { freePort } from '../support/dev-server';
import { runCli } from '../support/cli';
import { postDelivery } from '../support/fake-github/sign';
import { testServer } from '../support/temporal';
import { waitFor } from '../support/wait';

/** Processes whose command line names `text`, zombies aside. */
function processesMentioning(text: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(text) && !/^\s*\d+\s+Z/.test(line));
}

describe('the supervisor that `the-loop start` runs', () => {
  // A service start, three restarts at once and one more: 96 s on a machine running a CI suite beside it.
  it('restarts a server, worker and receiver killed with SIGKILL, with backoff, shown in status; stop ends it first', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-supervisor-'));
    const [port, uiPort, hook] = [await freePort(), await freePort(), await freePort()];
    const configFile = join(stateDir, 'the-loop.yaml');
    writeFileSync(
      configFile,
      `temporal:\n  devServer:\n    port: ${port}\n    uiPort: ${uiPort}\nwebhook:\n  port: ${hook}\n`,
    );
    const env: NodeJS.ProcessEnv = {
      THE_LOOP_STATE_DIR: stateDir,
      THE_LOOP_CONFIG: configFile,
      THE_LOOP_TEMPORAL_CLI: testServer().cliPath,
      THE_LOOP_WEBHOOK_SECRET: 'supervisor-test-secret',
      TEMPORAL_ADDRESS: '',
    };
    const pidOf = (name: string) => Number(readFileSync(join(stateDir, `${name}.pid`), 'utf8').trim());
    // none until the supervisor's first look
    const parts = () => {
      const file = join(stateDir, 'supervisor.json');
      return existsSync(file) ? supervisorFileSchema.parse(JSON.parse(readFileSync(file, 'utf8'))).parts : {};
    };
    try {
      const start = await runCli(['start'], { env });
      expect({ code: start.code, stderr: start.stderr }).toMatchObject({ code: 0 });
      const supervisor = pidOf('supervisor');
      expect(start.stdout).toContain(
        `started the supervisor (pid ${supervisor}): it restarts a part that exits`,
      );
      const first = { server: pidOf('temporal'), worker: pidOf('worker'), webhook: pidOf('webhook') };
      // it watches a part from its first look at it
      await waitFor('the supervisor to watch all three parts', () => {
        const seen = parts();
        return seen.server?.pid === first.server && seen.worker?.pid === first.worker && seen.webhook?.pid;
      });

      for (const pid of Object.values(first)) process.kill(pid, 'SIGKILL');
      const status = await waitFor(
        'the supervisor to restart all three',
        async () => {
          const result = await runCli(['status'], { env });
          const restarted = result.stdout.match(/restarted once by the supervisor/g) ?? [];
          return restarted.length === 3 && result.code === 0 && result;
        },
        180_000,
        1000,
      );
      const second = { server: pidOf('temporal'), worker: pidOf('worker'), webhook: pidOf('webhook') };
      for (const role of ['server', 'worker', 'webhook'] as const) {
        expect(second[role]).not.toBe(first[role]);
        expect(isAlive(second[role])).toBe(true);
      }
      expect(status.stdout).toMatch(new RegExp(`server: +running \\(pid ${second.server}`));
      expect(status.stdout).toMatch(
        new RegExp(`worker: +running \\(pid ${second.worker}, \`the-loop worker\``),
      );
      expect(status.stdout).toMatch(new RegExp(`webhook: +running \\(pid ${second.webhook}`));
      expect(status.stdout).toContain(`supervisor: running (pid ${supervisor}, restarts a part that exits`);
      // each part's own line is followed by what the supervisor did for it
      expect(status.stdout).toMatch(
        new RegExp(
          `worker: +running \\(pid ${second.worker}.*\\n +restarted once by the supervisor, last at 20`,
        ),
      );
      // the restarted receiver answers: a delivery signed with another secret is refused, not unanswered
      const refused = await postDelivery(`http://127.0.0.1:${hook}/github/webhook`, 'another secret', {
        event: 'ping',
        id: 'supervisor-test-1',
        payload: { zen: 'restarted' },
      });
      expect(refused.status).toBe(401);

      // A second exit soon after the first restart is the second in a row: it waits twice as long.
      process.kill(second.worker, 'SIGKILL');
      await waitFor(
        'the supervisor to restart the worker again',
        () => parts().worker?.restarts === 2,
        180_000,
      );
      expect(parts().worker).toMatchObject({
        consecutive: 1,
        exitedPid: second.worker,
        lastError: null,
      });
      const log = readFileSync(join(stateDir, 'logs', 'supervisor.log'), 'utf8');
      expect(log).toContain(
        `the worker (pid ${second.worker}) exited: restarting it in 2 s (2 restarts in a row)`,
      );
      const third = pidOf('worker');

      const stop = await runCli(['stop'], { env });
      expect(stop.code).toBe(0);
      expect(stop.stdout).toMatch(/^supervisor: stopped \(sig(term|kill)\)$/m);
      for (const pid of [supervisor, third, second.server, second.webhook]) expect(isAlive(pid)).toBe(false);
      expect(processesMentioning(stateDir)).toEqual([]);
    } finally {
      await runCli(['stop'], { env });
    }
  }, 420_000);
});
