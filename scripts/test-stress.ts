/**
 * The test suite on a loaded machine: two CPU-burning processes run beside jest for its whole run, so that a test
 * that depends on timing fails here rather than on a busy CI machine.
 *
 *   npm run test:stress [-- <jest arguments>]     (THE_LOOP_STRESS_BURNERS=<n> for another number of burners)
 *
 * Exits with jest's exit code; the burners are killed however jest ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

// scripts/ when run from source, dist/scripts/ when compiled.
const REPO = existsSync(resolve(__dirname, '..', 'package.json'))
  ? resolve(__dirname, '..')
  : resolve(__dirname, '..', '..');

function startBurners(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }),
  );
}

function main(): void {
  const count = Number(process.env.THE_LOOP_STRESS_BURNERS ?? 2);
  if (!Number.isInteger(count) || count < 0 || count > 64) {
    console.error(`test:stress: THE_LOOP_STRESS_BURNERS must be an integer from 0 to 64, not '${count}'`);
    process.exit(2);
  }
  const burners = startBurners(count);
  const stopBurners = () => {
    for (const burner of burners)
      if (burner.exitCode === null && burner.signalCode === null) burner.kill('SIGKILL');
  };
  process.on('exit', stopBurners);
  const started = Date.now();
  console.log(`test:stress: ${count} CPU burners (pids ${burners.map((b) => b.pid).join(', ')}) beside jest`);
  const jest = spawn(process.execPath, [require.resolve('jest/bin/jest'), ...process.argv.slice(2)], {
    cwd: REPO,
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      jest.kill(signal);
    });
  jest.on('close', (code, signal) => {
    stopBurners();
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`test:stress: jest ${signal ? `ended by ${signal}` : `exited ${code}`} after ${seconds} s`);
    process.exit(code ?? 1);
  });
}

main();
