/**
 * `npm run bench`: every benchmark, one after another, each printing its own figures and its baseline.
 * Pass names to run only some: `node dist/bench/run.js overhead sessions-list`.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';

const BENCHMARKS: Record<string, string[]> = {
  overhead: ['--iterations', '200'],
  'crash-recovery': [],
  'sessions-list': [],
  startup: [],
  'webhook-receiver': [],
  scale: ['--sizes', '100,500,1000'],
  board: [],
  'long-session': ['--turns', '5000'],
};

// Said after each one whether or not it prints its own: figures from a busy machine read differently.
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const wanted = process.argv.slice(2);
const started = performance.now();
let failed = 0;
for (const [name, args] of Object.entries(BENCHMARKS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n=== ${name} ===`);
  const result = spawnSync(process.execPath, [join(__dirname, `${name}.js`), ...args], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
  console.log(`(${name}: load average ${load()} when it ended)`);
}
console.log(`\nall benchmarks: ${((performance.now() - started) / 1000).toFixed(0)} s`);
process.exit(failed > 0 ? 1 : 0);
