import { readdirSync, readFileSync } from 'node:fs';
import { procStatFields } from '../../src/harness/process-group';

/**
 * Live processes whose environment has LOOPY_SESSION_DIR inside `sessionDir`: the harness, its CLI and every process
 * the CLI's tools started, whatever process group they moved to (the real claude runs each Bash command in a group
 * of its own). Read from /proc (this test's user owns them all).
 */
export function processesOfSession(sessionDir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue; // gone, or not ours
    }
    const dir = environ
      .split('\0')
      .find((kv) => kv.startsWith('LOOPY_SESSION_DIR='))
      ?.slice('LOOPY_SESSION_DIR='.length);
    if (dir === undefined || !(dir === sessionDir || dir.startsWith(`${sessionDir}/`))) continue;
    const state = procStatFields(entry)?.[0];
    if (state !== undefined && state !== 'Z') found.push(Number(entry));
  }
  return found;
}
