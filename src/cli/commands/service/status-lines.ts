import type { ServiceStatus } from '../../../service/service';
import type { Silence } from '../../../service/worker-liveness';
import { supervisionLines, supervisorLine } from '../../supervision-lines';

/** A worker process that is alive but stopped answering: since when, and what brings it back. */
function describeUnresponsive(
  worker: NonNullable<ServiceStatus['worker']>,
  silence: Silence,
  now: number,
): string[] {
  const seconds = Math.round((now - Date.parse(silence.since)) / 1000);
  const how = worker.command === 'dev' ? 'stop it (Ctrl-C) and run it again' : '`the-loop start` replaces it';
  const resume = silence.stopped ? `\`kill -CONT ${worker.pid}\` resumes it, or ` : '';
  return [
    `worker:   unresponsive (pid ${worker.pid}, \`the-loop ${worker.command}\`${silence.stopped ? ', stopped' : ''}, no answer since ${silence.since}, ${seconds} s ago, log ${worker.logFile})`,
    `          its sessions stall until it answers: ${resume}${how}`,
  ];
}

/** A background server's line (the webhook receiver, the board): running or not, or never started though configured. */
function serverLine(
  label: string,
  server: ServiceStatus['webhook'] | ServiceStatus['board'],
  notStarted: string,
): string[] {
  if (server.pid !== null)
    return [
      `${label}${server.running ? 'running' : 'not running'} (pid ${server.pid}${server.url ? `, ${server.url}` : ''}, log ${server.logFile})`,
    ];
  return server.configured ? [`${label}${notStarted}`] : [];
}

/** `the-loop status` as text: one line a part, what the supervisor did for it under it. */
export function describeStatus(status: ServiceStatus, now = Date.now()): string[] {
  const { target } = status;
  const lines = [
    `temporal: ${target.address} namespace ${target.namespace} (${target.source === 'embedded' ? 'embedded dev server' : `from ${target.source}`}) — ${status.reachable ? 'reachable' : 'NOT reachable'}`,
  ];
  if (status.server) {
    lines.push(
      `server:   ${status.server.running ? 'running' : 'not running'} (pid ${status.server.pid}, database ${status.server.dbFile}, log ${status.server.logFile})`,
    );
  } else if (target.source === 'embedded') {
    lines.push('server:   not started — `the-loop start` starts it');
  }
  const parts = status.supervisor?.parts ?? {};
  lines.push(...supervisionLines(parts.server, now));
  if (status.uiAddress) lines.push(`web ui:   ${status.uiAddress}`);
  if (status.worker?.unresponsive) {
    lines.push(...describeUnresponsive(status.worker, status.worker.unresponsive, now));
  } else if (status.worker) {
    lines.push(
      `worker:   ${status.worker.running ? 'running' : 'not running'} (pid ${status.worker.pid}${status.worker.command ? `, \`the-loop ${status.worker.command}\`` : ''}, queues ${status.worker.taskQueue} and ${status.worker.hostQueue}, log ${status.worker.logFile})`,
    );
  } else {
    lines.push('worker:   not started — `the-loop start` or `the-loop worker` runs one');
  }
  lines.push(...supervisionLines(parts.worker, now));
  lines.push(
    ...serverLine(
      'webhook:  ',
      status.webhook,
      'not started — `the-loop start` runs it (a webhook secret is configured)',
    ),
    ...serverLine('board:    ', status.board, 'not started — `the-loop start` runs it'),
  );
  lines.push(...supervisionLines(parts.board, now));
  lines.push(...supervisionLines(parts.webhook, now));
  const supervisor = supervisorLine(status);
  if (supervisor !== null) lines.push(supervisor);
  return lines;
}
