import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRunCgroup } from './cgroup';
import { findExecutable } from './find-executable';
import type { LaunchEvent, LaunchRequest } from './launch-protocol';
import { NAMESPACE_FD, namespaceStdio, turnNamespaces, type StdioSlot } from './namespaces';
import { compiledSupervisor } from './supervisor-binary';
import { supervisorCommand } from './supervisor';

/**
 * The supervisor shell starts whatever it is given, so a missing or non-executable command is told here, the way
 * spawn() would have told it (ENOENT / EACCES), rather than as the shell's exit status 127 / 126.
 */
function unrunnable(req: LaunchRequest): NodeJS.ErrnoException | null {
  const env = { PATH: req.env.PATH ?? '' };
  const named = req.command.includes('/') ? path.resolve(req.cwd, req.command) : req.command;
  if (findExecutable(named, env)) return null;
  const exists = req.command.includes('/')
    ? fs.existsSync(named)
    : env.PATH.split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, req.command)));
  const error: NodeJS.ErrnoException = new Error(`spawn ${req.command} ${exists ? 'EACCES' : 'ENOENT'}`);
  error.code = exists ? 'EACCES' : 'ENOENT';
  return error;
}

/**
 * Starts one process under its supervisor (which writes exit.json when it ends: the compiled one once the worker has
 * built it, else the shell one), the supervisor leading a new process group and, where the host allows, starting the
 * process in a cgroup of the run's own (and in a mount namespace without cgroup2, which keeps a root harness in that
 * cgroup: see namespaces.ts); stdout and stderr going straight to files. Reports the spawn (with the cgroup) and the
 * exit. Runs inside the launcher
 * process (and in the worker where there is none), so it imports nothing but Node built-ins.
 */
export function spawnDetached(req: LaunchRequest, report: (event: LaunchEvent) => void): void {
  let stdout: number | null = null;
  let stderr: number | null = null;
  let cgroup: string | null = null;
  try {
    const cannotRun = unrunnable(req);
    if (cannotRun) throw cannotRun;
    stdout = fs.openSync(req.stdoutFile, 'w', 0o644);
    stderr = fs.openSync(req.stderrFile, 'w', 0o644);
    cgroup = createRunCgroup(path.dirname(req.stdoutFile));
    const namespaces = cgroup === null ? null : turnNamespaces();
    const io: StdioSlot[] = [req.stdin === null ? 'ignore' : 'pipe', stdout, stderr];
    const inNamespace = namespaces?.kind === 'namespaces';
    const child = spawn(
      ...supervisorCommand(compiledSupervisor(), {
        exitFile: req.exitFile,
        cgroup,
        namespace: inNamespace ? { fd: NAMESPACE_FD, wrap: namespaces.wrap(req.cwd) } : null,
        command: [req.command, ...req.args],
      }),
      {
        cwd: req.cwd,
        env: req.env,
        detached: true,
        stdio: inNamespace ? namespaceStdio(io, namespaces.fd) : io,
      },
    );
    let started = false;
    child.once('spawn', () => {
      started = true;
      const sealed = cgroup !== null && namespaces?.kind === 'namespaces';
      report({ type: 'spawned', id: req.id, pid: child.pid ?? 0, cgroup, sealed });
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      // After a successful spawn an 'error' is a failed kill() or send(): the exit still comes.
      if (started) return;
      removeEmptyCgroup(cgroup);
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
    removeEmptyCgroup(cgroup);
    const err = error as NodeJS.ErrnoException;
    report({ type: 'spawn-error', id: req.id, code: err.code ?? 'EUNKNOWN', message: err.message });
  } finally {
    // The child holds its own copies.
    if (stdout !== null) fs.closeSync(stdout);
    if (stderr !== null) fs.closeSync(stderr);
  }
}

/** A run that never started leaves no cgroup behind (nothing ever joined it, so rmdir cannot fail for a member). */
function removeEmptyCgroup(cgroup: string | null): void {
  if (cgroup === null) return;
  try {
    fs.rmdirSync(cgroup);
  } catch {
    // gone already, or (never expected) not empty: the turn's end removes it
  }
}
