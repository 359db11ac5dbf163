/**
 * `npm run bench`: every benchmark, one after another, each printing its own figures and its baseline.
 * Pass names to run only some: `node dist/bench/run.js overhead sessions-list`.
 */
import { spawnSync } from 'node:child_process';
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

const wanted = process.argv.slice(2);
let failed = 0;
for (const [name, args] of Object.entries(BENCHMARKS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n=== ${name} ===`);
  const result = spawnSync(process.execPath, [join(__dirname, `${name}.js`), ...args], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
