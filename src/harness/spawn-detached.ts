import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { LaunchEvent, LaunchRequest } from './launch-protocol';

/**
 * Starts one process as the leader of a new process group, its stdout and stderr going straight to files, and
 * reports its spawn and its exit. Runs inside the launcher process (and in the worker where there is none), so it
 * imports nothing but Node built-ins.
 */
export function spawnDetached(req: LaunchRequest, report: (event: LaunchEvent) => void): void {
  let stdout: number | null = null;
  let stderr: number | null = null;
  try {
    stdout = fs.openSync(req.stdoutFile, 'w', 0o644);
    stderr = fs.openSync(req.stderrFile, 'w', 0o644);
    const child = spawn(req.command, req.args, {
      cwd: req.cwd,
      env: req.env,
      detached: true,
      stdio: [req.stdin === null ? 'ignore' : 'pipe', stdout, stderr],
    });
    let started = false;
    child.once('spawn', () => {
      started = true;
      report({ type: 'spawned', id: req.id, pid: child.pid ?? 0 });
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      // After a successful spawn an 'error' is a failed kill() or send(): the exit still comes.
      if (!started)
        report({ type: 'spawn-error', id: req.id, code: error.code ?? 'EUNKNOWN', message: error.message });
    });
    child.once('exit', (code, signal) => {
      if (started) report({ type: 'exit', id: req.id, code, signal });
    });
    if (child.stdin) {
      // A process that exits without reading its stdin must not take us down with EPIPE.
      child.stdin.on('error', () => {});
      child.stdin.end(req.stdin ?? '');
    }
  } catch (error) {
    const err = error as NodeJS.ErrnoException;
    report({ type: 'spawn-error', id: req.id, code: err.code ?? 'EUNKNOWN', message: err.message });
  } finally {
    // The child holds its own copies.
    if (stdout !== null) fs.closeSync(stdout);
    if (stderr !== null) fs.closeSync(stderr);
  }
}
