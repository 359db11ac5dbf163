import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/dev-server';
import { BIN, runCli } from '../support/cli';
import { testServer, uniqueQueue } from '../support/temporal';
import { waitFor } from '../support/wait';

describe('the-loop worker with worker.metricsPort', () => {
  function setup(metricsPort: number) {
    const dir = mkdtempSync(join(tmpdir(), 'the-loop-metrics-'));
    const taskQueue = uniqueQueue('metrics');
    const configFile = join(dir, 'the-loop.yaml');
    writeFileSync(
      configFile,
      [
        'temporal:',
        `  taskQueue: ${taskQueue}`,
        'worker:',
        '  hostId: metricshost',
        `  metricsPort: ${metricsPort}`,
        '  maxConcurrentActivityTaskExecutions: 1234',
        '',
      ].join('\n'),
    );
    const env = {
      ...process.env,
      THE_LOOP_CONFIG: configFile,
      THE_LOOP_STATE_DIR: join(dir, 'state'),
      TEMPORAL_ADDRESS: testServer().address,
    };
    return { dir, taskQueue, env };
  }

  it('serves the SDK metrics for Prometheus: slots (as configured) and pollers of both queues', async () => {
    const port = await freePort();
    const { dir, taskQueue, env } = setup(port);
    const readyFile = join(dir, 'ready.json');
    const log = openSync(join(dir, 'worker.log'), 'a');
    const worker = spawn(process.execPath, [BIN, 'worker', '--ready-file', readyFile], {
      env,
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    const exited = new Promise((done) => worker.once('exit', done));
    try {
      await waitFor(
        'the worker to poll',
        () => {
          if (worker.exitCode !== null) throw new Error(readFileSync(join(dir, 'worker.log'), 'utf8'));
          return existsSync(readyFile);
        },
        120_000,
      );
      const url = `http://127.0.0.1:${port}/metrics`;
      // The SDK emits each worker's gauges at its own first poll: the host queue's activity slots can come a scrape
      // after its other metrics on a loaded machine.
      const hostSlotsOf = (body: string) =>
        body
          .split('\n')
          .filter((line) => line.startsWith('temporal_worker_task_slots_available{'))
          .filter((line) => line.includes(`task_queue="${taskQueue}.host.metricshost"`))
          .filter((line) => line.includes('worker_type="ActivityWorker"'));
      const text = await waitFor(
        'activity slot metrics for the host queue',
        async () => {
          const body = await (await fetch(url)).text();
          return hostSlotsOf(body).length > 0 && body;
        },
        120_000,
      );
      expect(text).toMatch(/^# TYPE temporal_worker_task_slots_available gauge$/m);
      expect(text).toMatch(
        new RegExp(
          `^temporal_worker_task_slots_available\\{[^}]*task_queue="${taskQueue}"[^}]*\\} \\d+`,
          'm',
        ),
      );
      expect(text).toMatch(/^temporal_num_pollers\{/m);
      // worker.maxConcurrentActivityTaskExecutions reaches the SDK: the host queue's idle activity slots.
      expect(hostSlotsOf(text)).toEqual([expect.stringMatching(/ 1234$/)]);
      expect(readFileSync(join(dir, 'worker.log'), 'utf8')).toContain(`metrics for Prometheus at ${url}`);
    } finally {
      worker.kill('SIGTERM');
      await exited;
    }
  });

  it('a metrics port already in use: one line naming it, exit 1', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const { env } = setup(port);
      const result = await runCli(['worker'], { env });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(
        new RegExp(`^the-loop: cannot serve metrics on 127\\.0\\.0\\.1:${port} \\(worker\\.metricsPort\\)`),
      );
    } finally {
      busy.close();
    }
  });
});
