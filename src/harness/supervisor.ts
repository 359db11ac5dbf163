/**
 * exit.json's reserved size: room for its longest record (a signal such as SIGRTMIN+15, or a code of up to 255: under
 * 100 bytes), and well inside one disk block.
 */
export const EXIT_FILE_RESERVED_BYTES = 256;

/**
 * The harness's supervisor where the compiled one (supervisor.c, which keeps the same promises at less cost per turn)
 * is not built: a POSIX shell that leads the run's process group, runs the harness as its child and,
 * when the harness ends, writes its verdict into exit.json next to stdout.txt. It needs neither the worker nor the
 * launcher, so a turn that ends while no worker runs still leaves its verdict on disk. Afterwards it ends the way the
 * harness did (the same signal, or the same code) for whoever still waits on it.
 *
 * A turn starts no process but the supervisor and the harness (test/unit/harness/turn-processes.test.ts counts them):
 * the verdict is written with the shell's builtins alone. The time it ended is exit.json's modification time, and
 * there is no rename to make the write atomic; instead exit.json is created before the harness starts as
 * EXIT_FILE_RESERVED_BYTES of blanks, and the verdict is later written over its start (`1<>`: opened without
 * truncation) in one write. Blanks, or any part of a record (a JSON object whose only braces are its first and last
 * byte), are not JSON: every reader takes them as "no verdict" (readExit in activities/recover-run.ts). The reserved
 * space also means that a disk the harness (or anyone) fills meanwhile cannot fail that write with ENOSPC: it lands in
 * a block the file already holds. The blanks left after the record are JSON whitespace, which JSON.parse skips. A
 * reservation that itself fails (a disk full already) leaves the write to find space at the end, as before.
 *
 * A group-wide SIGTERM, SIGINT or SIGHUP is left to the harness: the supervisor waits for it and records how it ended
 * (a handler that only notes the signal, not an ignored signal, which the harness would inherit). One that comes
 * before the harness is started (a stop in a run's first moments) means the harness is never started: the run is
 * recorded as ended by that signal, instead of running until the grace period's SIGKILL. A SIGKILL ends both, and
 * no verdict is written: the run did not finish, and recovery abandons it.
 * A shell sees a signal death as status 128+N, as it does an explicit `exit 128+N`: both are recorded as signal N.
 *
 * The shell's own notices ("Terminated") are kept out of stderr.txt, which is the harness's alone.
 *
 * Before anything else it moves itself into the run's cgroup when it is given one, so that the harness and all it
 * starts are born inside it and none can leave it (setsid and a double fork leave the process group, not the cgroup).
 * Should the move fail, it removes the cgroup (still empty) and runs the harness anyway: the empty directory's absence
 * tells whoever ends the run that only the process group holds it.
 *
 * The command may be namespaces.ts's wrapper around the harness: it comes after the move, which needs the cgroup
 * file system the wrapper's namespace lacks.
 *
 * Arguments: $1 the exit.json path, $2 the run's cgroup directory or '', then the command and its arguments.
 * Imports nothing: the launcher loads it.
 */
export const SUPERVISOR_SCRIPT = `exit_file=$1
cgroup=$2
shift 2
caught=
trap 'caught=1' HUP
trap 'caught=2' INT
trap 'caught=15' TERM
exec 3>&2 2>/dev/null
printf '%${EXIT_FILE_RESERVED_BYTES - 1}s\\n' '' > "$exit_file"
if [ -n "$cgroup" ]; then echo $$ > "$cgroup/cgroup.procs" || rmdir "$cgroup"; fi
if [ -n "$caught" ]; then code=$((128 + caught)); else
"$@" 2>&3 3>&-
code=$?
fi
signal=
if [ "$code" -gt 128 ] && [ "$code" -lt 160 ]; then signal=$(kill -l $((code - 128)) 2>/dev/null) || signal=; fi
if [ -n "$signal" ]; then verdict="\\"code\\":null,\\"signal\\":\\"SIG$signal\\""; else verdict="\\"code\\":$code,\\"signal\\":null"; fi
printf '{"schema_version":2,%s}' "$verdict" 1<> "$exit_file"
if [ -n "$signal" ]; then trap - "$signal"; kill -s "$signal" $$; fi
exit "$code"
`;

export const SUPERVISOR_NAME = 'the-loop-supervisor';

/** What a supervisor is given: the run's exit.json, its cgroup, the namespace to enter, the harness's command line. */
export interface SupervisedRun {
  exitFile: string;
  cgroup: string | null;
  /** The namespace's descriptor in the supervisor, and namespaces.ts's wrapper for the shell supervisor. */
  namespace: { fd: number; wrap: readonly string[] } | null;
  command: readonly string[];
}

/**
 * The program and arguments that start a run's supervisor: the compiled one at `compiled` (supervisor.c: EXIT_FILE
 * CGROUP_DIR NAMESPACE_FD COMMAND...), or the shell one when that is null (this file's script, with the namespace's
 * wrapper before the command).
 */
export function supervisorCommand(compiled: string | null, run: SupervisedRun): [string, string[]] {
  const cgroup = run.cgroup ?? '';
  if (compiled)
    return [compiled, [run.exitFile, cgroup, run.namespace ? String(run.namespace.fd) : '', ...run.command]];
  const wrap = run.namespace?.wrap ?? [];
  return [
    '/bin/sh',
    ['-c', SUPERVISOR_SCRIPT, SUPERVISOR_NAME, run.exitFile, cgroup, ...wrap, ...run.command],
  ];
}

export const EXIT_FILE = 'exit.json';
