/**
 * `npm run bench`: every benchmark, one after another, each printing its own figures, its baseline from the same
 * run and the goals it is held to, then how long each took, the machine's load, and the total against issue 28's
 * goal (all of them in under 10 minutes). Pass names to run only some: `node dist/bench/run.js overhead startup`.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

const BENCHMARKS: Record<string, string[]> = {
  // First: the others end by removing the tens of thousands of files they made, and on an ext4 file system without a
  // journal (this project's machines) each file created in the next minute or so costs up to a millisecond more
  // (README, ext4): the long session's early turns, its baseline, ran at 91 ms p50 after them and 39 ms late.
  'long-session': ['--turns', '5000'],
  overhead: ['--iterations', '200'],
  // Six crashes for the recovery time, at the kill loop test's 3 s heartbeat timeout (what recovery adds to it is the
  // figure; at 5 s each crash waited 2 s more); the kill loop's integrity counts are npm test's (kill-loop.test.ts).
  'crash-recovery': ['--crashes', '6', '--heartbeat', '3s', '--loop-kills', '0'],
  'sessions-list': [],
  startup: [],
  'webhook-receiver': [],
  // the idle row and the goal's 1,000, CPU over 5 s; 5,000 takes longer than all the others together: `--sizes 5000`
  scale: ['--sizes', '1000', '--cpu-window-ms', '5000'],
  board: [],
};

const TOTAL_GOAL_S = 600;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0) {
  console.error(
    `bench: no benchmark named ${unknown.join(', ')} — choose from ${Object.keys(BENCHMARKS).join(', ')}`,
  );
  process.exit(2);
}
console.log(`machine: ${cpus().length} CPUs; load average at the start ${load()}`);
const took: [string, number, number | null][] = [];
const started = performance.now();
for (const [name, args] of Object.entries(BENCHMARKS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n=== ${name} ===`);
  const t0 = performance.now();
  const result = spawnSync(process.execPath, [join(__dirname, `${name}.js`), ...args], { stdio: 'inherit' });
  took.push([name, (performance.now() - t0) / 1000, result.status]);
  // Said after each one whether or not it prints its own: figures from a busy machine read differently.
  console.log(`(${name}: load average ${load()} when it ended)`);
}
const total = (performance.now() - started) / 1000;
console.log('\n=== summary ===');
for (const [name, seconds, status] of took)
  console.log(
    `${name.padEnd(18)} ${seconds.toFixed(0).padStart(5)} s${status === 0 ? '' : `  FAILED (exit ${status})`}`,
  );
console.log(
  `${'total'.padEnd(18)} ${total.toFixed(0).padStart(5)} s  (goal for all of them: < ${TOTAL_GOAL_S} s: ${total < TOTAL_GOAL_S ? 'met' : 'MISSED'}); load average now ${load()}`,
);
process.exit(took.some(([, , status]) => status !== 0) ? 1 : 0);
