import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../../src/service/dev-server';
import { freePort } from '../support/dev-server';
import { runCli } from '../support/cli';
import { testServer } from '../support/temporal';
import { waitFor } from '../support/wait';

describe('a worker that stops answering (issue 27 §6)', () => {
  // Two service starts and a wait of five missed heartbeats: 128 s once on a loaded CI machine.
  it('a SIGSTOPped worker is reported unresponsive (exit 1), and `start` replaces it with one that answers', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-liveness-'));
    const [port, uiPort] = [await freePort(), await freePort()];
    const configFile = join(stateDir, 'the-loop.yaml');
    // worker.heartbeatTimeout is the grace `start` gives a silent worker: at its 1 s minimum, `start` replaces a
    // worker as soon as `status` calls it unresponsive.
    writeFileSync(
      configFile,
      `temporal:\n  devServer:\n    port: ${port}\n    uiPort: ${uiPort}\nworker:\n  heartbeatTimeout: 1s\n`,
    );
    const env: NodeJS.ProcessEnv = {
      THE_LOOP_STATE_DIR: stateDir,
      THE_LOOP_CONFIG: configFile,
      THE_LOOP_TEMPORAL_CLI: testServer().cliPath,
      TEMPORAL_ADDRESS: '',
    };
    const workerPid = () => Number(readFileSync(join(stateDir, 'worker.pid'), 'utf8').trim());
    let stopped: number | null = null;
    try {
      const start = await runCli(['start'], { env });
      expect({ code: start.code, stderr: start.stderr }).toMatchObject({ code: 0 });
      const first = workerPid();
      const healthy = await runCli(['status'], { env });
      expect(healthy.code).toBe(0);
      expect(healthy.stdout).toMatch(new RegExp(`worker: +running \\(pid ${first}, \`the-loop worker\``));

      process.kill(first, 'SIGSTOP');
      stopped = first;
      const unresponsive = await waitFor(
        'status to call the stopped worker unresponsive',
        async () => {
          const status = await runCli(['status'], { env });
          return /worker: +unresponsive/.test(status.stdout) && status;
        },
        120_000,
        2000,
      );
      expect(unresponsive.code).toBe(1);
      expect(unresponsive.stdout).toMatch(
        new RegExp(
          `worker: +unresponsive \\(pid ${first}, \`the-loop worker\`, stopped, no answer since \\d{4}-`,
        ),
      );
      expect(unresponsive.stdout).toContain(
        `\`kill -CONT ${first}\` resumes it, or \`the-loop start\` replaces it`,
      );

      const replace = await runCli(['start'], { env });
      expect({ code: replace.code, stderr: replace.stderr }).toMatchObject({ code: 0 });
      const second = workerPid();
      expect(second).not.toBe(first);
      expect(replace.stdout).toContain(
        `killed an unresponsive worker (pid ${first}, stopped, no answer since `,
      );
      expect(replace.stdout).toContain(`started a worker (pid ${second})`);
      expect(isAlive(first)).toBe(false);
      stopped = null;

      const after = await runCli(['status'], { env });
      expect(after.code).toBe(0);
      expect(after.stdout).toMatch(new RegExp(`worker: +running \\(pid ${second}, \`the-loop worker\``));
    } finally {
      if (stopped !== null && isAlive(stopped)) process.kill(stopped, 'SIGKILL');
      await runCli(['stop'], { env });
    }
  }, 300_000);
});
