/** What the worker asks the launcher for: one harness process, in its own process group. */
export interface LaunchRequest {
  type: 'launch';
  id: number;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to the process's stdin, which is then closed; null gives it no stdin. */
  stdin: string | null;
  /** The process writes straight into these files (no pipe through the worker). */
  stdoutFile: string;
  stderrFile: string;
  /** Where the process's supervisor records how it ended (exit.json), even when no one waits on it any more. */
  exitFile: string;
}

export type LaunchEvent =
  /**
   * cgroup: the run's cgroup v2 directory, which the supervisor joins before it starts the process; null if none.
   * sealed: the process cannot leave it (it runs in a mount namespace without cgroup2).
   */
  | { type: 'spawned'; id: number; pid: number; cgroup: string | null; sealed: boolean }
  | { type: 'spawn-error'; id: number; code: string; message: string }
  | { type: 'exit'; id: number; code: number | null; signal: string | null };
