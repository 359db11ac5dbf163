import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { expect } from '@jest/globals';
import { join, relative } from 'node:path';
import { testServer } from './temporal';

/**
 * One work item per suite on the run's shared dev server. A work item's workflow id is `work-item/<ref>`, so two
 * suites that start the same ref on one server take each other's session: they fail only when their tests happen
 * to overlap, which a loaded machine makes likely. The first suite that starts or registers a ref claims it for the
 * run (a file created exclusively in the run's directory); another suite that does the same fails at once, naming
 * both, whatever the timing.
 */
export function claimWorkItem(ref: string, configText: string): void {
  const server = testServer();
  // A suite on a server of its own (gate-durability.test.ts) shares no workflow ids with the others.
  if (!configText.includes(server.address)) return;
  const suite = relative(process.cwd(), expect.getState().testPath ?? 'an unnamed suite');
  const dir = join(server.dir, 'work-item-claims');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, encodeURIComponent(ref));
  try {
    const fd = openSync(file, 'wx');
    writeSync(fd, suite);
    closeSync(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const owner = readFileSync(file, 'utf8');
    if (owner !== suite) {
      throw new Error(
        `${ref} is also started by ${owner}: two suites on the shared dev server would share its workflow id; ` +
          'give this suite a work-item number no other suite uses',
        { cause: error },
      );
    }
  }
}

/** The ref a `sessions start|register --work-item REF` command line starts, if it is one. */
export function startedWorkItem(args: readonly string[]): string | null {
  if (args[0] !== 'sessions' || (args[1] !== 'start' && args[1] !== 'register')) return null;
  const at = args.indexOf('--work-item');
  return at >= 0 ? (args[at + 1] ?? null) : null;
}
