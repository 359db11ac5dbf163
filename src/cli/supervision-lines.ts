import type { ServiceStatus } from '../service/service';
import type { SupervisedPart } from '../service/supervisor-file';

const INDENT = '          ';

/** What the supervisor did for one part, as lines under that part's own status line; none when it never exited. */
export function supervisionLines(part: SupervisedPart | undefined, now = Date.now()): string[] {
  if (part === undefined) return [];
  if (part.nextRestartAt !== null) {
    const inSeconds = Math.ceil((Date.parse(part.nextRestartAt) - now) / 1000);
    const when = inSeconds > 0 ? `restarts it in ${inSeconds} s` : 'is restarting it';
    const inARow = part.consecutive > 0 ? ` (restart ${part.consecutive + 1} in a row)` : '';
    const lines = [
      `${INDENT}exited at ${part.exitedAt} (pid ${part.exitedPid}); the supervisor ${when}${inARow}`,
    ];
    if (part.lastError !== null) lines.push(`${INDENT}the last restart failed: ${part.lastError}`);
    return lines;
  }
  if (part.restarts === 0) return [];
  const times = part.restarts === 1 ? 'once' : `${part.restarts} times`;
  return [
    `${INDENT}restarted ${times} by the supervisor, last at ${part.lastRestartAt} (it exited at ${part.exitedAt})`,
  ];
}

/** The supervisor's own status line. */
export function supervisorLine(status: ServiceStatus): string | null {
  const { supervisor } = status;
  if (supervisor === null) {
    return status.worker?.command === 'worker'
      ? 'supervisor: not started — a part that exits stays down; `the-loop start` starts it'
      : null;
  }
  return supervisor.running
    ? `supervisor: running (pid ${supervisor.pid}, restarts a part that exits, log ${supervisor.logFile})`
    : `supervisor: not running (pid ${supervisor.pid}) — a part that exits stays down; \`the-loop start\` starts it again`;
}
