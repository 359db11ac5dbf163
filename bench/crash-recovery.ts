/**
 * Crash-recovery benchmark: kill -9 a session's worker, restart it at once, and time the restart → the next
 * iteration's harness starting. p50/p90 over N crashes that hit mid-turn, next to the configured heartbeat
 * timeout (the floor: the server only retries the turn once the dead attempt misses its heartbeats). Then a
 * kill loop at random moments (mid-turn, between turns, during a flush…) with its integrity figures: lost or
 * duplicated turns, turns run twice, gaps in events.jsonl, orphan processes at the end.
 *
 *   npm run build && node dist/bench/crash-recovery.js [--crashes 10] [--heartbeat 5s,10s] [--turn-ms 3000]
 *     [--loop-kills 20] [--loop-heartbeat 3s] [--seed 1]
 *
 * `--loop-kills 0` leaves the kill loop out (npm run bench does: npm test runs it).
 *
 * Starts its own dev server (throw-away SQLite file). Prints figures; never a timed test.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { requireDuration } from '../src/config/duration';
import { stopProcess } from '../src/service/dev-server';
import { startScratchDevServer } from '../test/support/dev-server';
import { resolveTemporalCli } from '../src/service/resolve-cli';
import { percentile, runKillLoop } from '../test/support/kill-loop';
import { assertFreshBuild } from '../test/support/worker-processes';
import { loadAverage } from './stats';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

async function main(): Promise<void> {
  assertFreshBuild();
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const crashes = Number(arg('crashes', '10'));
  const heartbeats = arg('heartbeat', '5s')
    .split(',')
    .map((h) => requireDuration(h, '--heartbeat'));
  const turnMs = Number(arg('turn-ms', '3000'));
  const loopKills = Number(arg('loop-kills', '20'));
  const loopHeartbeat = requireDuration(arg('loop-heartbeat', '3s'), '--loop-heartbeat');
  const seed = Number(arg('seed', '1'));

  const dir = mkdtempSync(join(tmpdir(), 'the-loop-bench-crash-'));
  const cli = await resolveTemporalCli({ onProgress: (line) => process.stderr.write(`${line}\n`) });
  const server = await startScratchDevServer({ cliPath: cli.path, dir });
  try {
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../src/workflows'),
      logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} },
    });
    const bundlePath = join(dir, 'workflow-bundle.js');
    writeFileSync(bundlePath, code);
    const log = (line: string) => process.stderr.write(`  ${line}\n`);

    console.log(
      `crash recovery: restart → next iteration starting, ${crashes} kill -9 mid-turn, turn ${turnMs} ms`,
    );
    for (const heartbeatTimeoutMs of heartbeats) {
      const report = await runKillLoop({
        address: server.address,
        bundlePath,
        kills: crashes,
        heartbeatTimeoutMs,
        turnMs,
        mode: 'mid-turn',
        seed,
        log,
      });
      const times = report.kills.flatMap((k) =>
        k.restartToNextTurnMs === null ? [] : [k.restartToNextTurnMs],
      );
      console.log(
        `  heartbeat timeout ${heartbeatTimeoutMs} ms: p50 ${percentile(times, 50)} ms, p90 ${percentile(times, 90)} ms, ` +
          `min ${Math.min(...times)} ms, max ${Math.max(...times)} ms (n=${times.length}); ` +
          `abandoned ${report.abandoned} (${report.abandonedFinished} of them finished), cost reported $${report.reportedCostUsd.toFixed(2)} recorded $${report.recordedCostUsd.toFixed(2)}, lost ${report.lostTurns}, run twice ${report.turnsRunTwice}, orphans ${report.orphanProcesses.length}`,
      );
    }

    if (loopKills === 0) {
      // npm run bench leaves it out: its figures are counts that test/integration/recovery/kill-loop.test.ts holds
      // at zero in every npm test, and it takes two minutes.
      console.log(
        'kill loop: not run (--loop-kills 0); npm test runs it (test/integration/recovery/kill-loop.test.ts)',
      );
      console.log(loadAverage());
      return;
    }
    console.log(
      `kill loop: ${loopKills} kill -9 at random moments, heartbeat timeout ${loopHeartbeat} ms, seed ${seed}`,
    );
    const loop = await runKillLoop({
      address: server.address,
      bundlePath,
      kills: loopKills,
      heartbeatTimeoutMs: loopHeartbeat,
      turnMs: 1500,
      mode: 'random',
      seed,
      log,
    });
    console.log(
      `  ${loop.kills.length} kills (${loop.kills.filter((k) => k.midTurn).length} mid-turn), ${loop.iterations} iterations, ` +
        `${loop.abandoned} abandoned (${loop.abandonedFinished} of them finished), ${loop.recovered} recovered; cost reported $${loop.reportedCostUsd.toFixed(2)}, recorded $${loop.recordedCostUsd.toFixed(2)}; lost turns ${loop.lostTurns}, duplicated turns ${loop.duplicatedTurns}, ` +
        `turns run twice ${loop.turnsRunTwice}, event gaps [${loop.eventGaps.join(', ')}], orphan processes ${loop.orphanProcesses.length} (setsid escapees started: ${loop.escapees}); ` +
        `stop ${loop.stop.kind}; ${Math.round(loop.wallMs / 1000)} s`,
    );
    console.log(loadAverage());
  } finally {
    await stopProcess(server.pid, 5000);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error((error as Error).stack ?? String(error));
    process.exit(1);
  },
);
