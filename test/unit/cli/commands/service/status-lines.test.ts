import { describeStatus } from '../../../../../src/cli/commands/service/status-lines';
import type { ServiceStatus } from '../../../../../src/service/service';

const NOW = Date.parse('2026-12-02T12:00:00.000Z');

/** A service `the-loop start` started on the embedded server, its worker answering, no webhook, no board. */
function status(worker: Partial<NonNullable<ServiceStatus['worker']>> = {}): ServiceStatus {
  return {
    target: {
      connectionOptions: { address: '127.0.0.1:7233' },
      address: '127.0.0.1:7233',
      namespace: 'default',
      source: 'embedded',
    },
    reachable: true,
    uiAddress: null,
    server: {
      pid: 100,
      running: true,
      command: 'server',
      dbFile: '/s/temporal.db',
      logFile: '/s/server.log',
    },
    worker: {
      pid: 200,
      running: true,
      command: 'worker',
      unresponsive: null,
      logFile: '/s/worker.log',
      taskQueue: 'the-loop',
      hostQueue: 'the-loop@host',
      ...worker,
    },
    webhook: { configured: false, pid: null, running: false, url: null, logFile: '/s/webhook.log' },
    board: { configured: false, pid: null, running: false, url: null, logFile: '/s/board.log' },
    supervisor: { pid: 300, running: true, command: 'supervise', logFile: '/s/supervisor.log', parts: {} },
  };
}

describe('the-loop status as text', () => {
  it('a service that answers: a line a part, where it runs and where it logs', () => {
    expect(describeStatus(status(), NOW)).toEqual([
      'temporal: 127.0.0.1:7233 namespace default (embedded dev server) — reachable',
      'server:   running (pid 100, database /s/temporal.db, log /s/server.log)',
      'worker:   running (pid 200, `the-loop worker`, queues the-loop and the-loop@host, log /s/worker.log)',
      'supervisor: running (pid 300, restarts a part that exits, log /s/supervisor.log)',
    ]);
  });

  it('a stopped worker that `the-loop start` ran: since when, how long ago, and both ways back', () => {
    const lines = describeStatus(
      status({ unresponsive: { since: '2026-12-02T11:58:30.000Z', stopped: true } }),
      NOW,
    );
    expect(lines.slice(2, 4)).toEqual([
      'worker:   unresponsive (pid 200, `the-loop worker`, stopped, no answer since 2026-12-02T11:58:30.000Z, 90 s ago, log /s/worker.log)',
      '          its sessions stall until it answers: `kill -CONT 200` resumes it, or `the-loop start` replaces it',
    ]);
  });

  it('a `the-loop dev` worker that hangs is run again by hand: `start` does not replace it', () => {
    const lines = describeStatus(
      status({ command: 'dev', unresponsive: { since: '2026-12-02T11:59:55.000Z', stopped: false } }),
      NOW,
    );
    expect(lines.slice(2, 4)).toEqual([
      'worker:   unresponsive (pid 200, `the-loop dev`, no answer since 2026-12-02T11:59:55.000Z, 5 s ago, log /s/worker.log)',
      '          its sessions stall until it answers: stop it (Ctrl-C) and run it again',
    ]);
  });
});
