import { Command, Option } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import type { ServiceStatus } from '../../../service/service';
import type { Silence } from '../../../service/worker-liveness';
import type { LogOptions } from '../../../log/options';
import { logFormatOption, logLevelOption, logOptionsOf } from '../../log-options';
import { supervisionLines, supervisorLine } from '../../supervision-lines';
import { processIo } from '../../io';

/** Loads the config only once a command runs; `--help` and `--version` never do. */
async function createContext(options: GlobalOptions, log?: LogOptions) {
  return (await import('../../../service/context.js')).createContext(options, log);
}

/** A worker process that is alive but stopped answering: since when, and what brings it back. */
function describeUnresponsive(worker: NonNullable<ServiceStatus['worker']>, silence: Silence): string[] {
  const seconds = Math.round((Date.now() - Date.parse(silence.since)) / 1000);
  const how = worker.command === 'dev' ? 'stop it (Ctrl-C) and run it again' : '`the-loop start` replaces it';
  const resume = silence.stopped ? `\`kill -CONT ${worker.pid}\` resumes it, or ` : '';
  return [
    `worker:   unresponsive (pid ${worker.pid}, \`the-loop ${worker.command}\`${silence.stopped ? ', stopped' : ''}, no answer since ${silence.since}, ${seconds} s ago, log ${worker.logFile})`,
    `          its sessions stall until it answers: ${resume}${how}`,
  ];
}

function describeStatus(status: ServiceStatus): string[] {
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
  lines.push(...supervisionLines(parts.server));
  if (status.uiAddress) lines.push(`web ui:   ${status.uiAddress}`);
  if (status.worker?.unresponsive) {
    lines.push(...describeUnresponsive(status.worker, status.worker.unresponsive));
  } else if (status.worker) {
    lines.push(
      `worker:   ${status.worker.running ? 'running' : 'not running'} (pid ${status.worker.pid}${status.worker.command ? `, \`the-loop ${status.worker.command}\`` : ''}, queues ${status.worker.taskQueue} and ${status.worker.hostQueue}, log ${status.worker.logFile})`,
    );
  } else {
    lines.push('worker:   not started — `the-loop start` or `the-loop worker` runs one');
  }
  lines.push(...supervisionLines(parts.worker));
  const { webhook } = status;
  if (webhook.pid !== null) {
    lines.push(
      `webhook:  ${webhook.running ? 'running' : 'not running'} (pid ${webhook.pid}${webhook.url ? `, ${webhook.url}` : ''}, log ${webhook.logFile})`,
    );
  } else if (webhook.configured) {
    lines.push('webhook:  not started — `the-loop start` runs it (a webhook secret is configured)');
  }
  const { board } = status;
  if (board.pid !== null) {
    lines.push(
      `board:    ${board.running ? 'running' : 'not running'} (pid ${board.pid}${board.url ? `, ${board.url}` : ''}, log ${board.logFile})`,
    );
  } else if (board.configured) {
    lines.push('board:    not started — `the-loop start` runs it');
  }
  lines.push(...supervisionLines(parts.board));
  lines.push(...supervisionLines(parts.webhook));
  const supervisor = supervisorLine(status);
  if (supervisor !== null) lines.push(supervisor);
  return lines;
}

export function registerServiceCommands(program: Command<[], GlobalOptions>): void {
  program
    .command('start')
    .description(
      'start the embedded Temporal dev server (when no Temporal is configured) and a worker, in the background',
    )
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action(async (options) => {
      const ctx = await createContext(program.opts(), logOptionsOf(options));
      const { startService } = await import('../../../service/service.js');
      const { describeReplaced } = await import('../../../service/replace-unresponsive.js');
      const result = await startService(ctx);
      if (result.server) {
        processIo.out(
          result.server.started
            ? `started the Temporal dev server (pid ${result.server.pid}) on ${result.target.address}`
            : `the Temporal dev server is already running (pid ${result.server.pid}) on ${result.target.address}`,
        );
      } else {
        processIo.out(`using Temporal at ${result.target.address} (${result.target.source})`);
      }
      const { replaced } = result.worker;
      if (replaced) processIo.out(describeReplaced(replaced));
      processIo.out(
        result.worker.started
          ? `started a worker (pid ${result.worker.pid})`
          : `a worker is already running (pid ${result.worker.pid}, \`the-loop ${result.worker.command}\`)`,
      );
      if (result.webhook) {
        const where = result.webhook.url ? ` on ${result.webhook.url}` : '';
        processIo.out(
          result.webhook.started
            ? `started the webhook receiver (pid ${result.webhook.pid})${where}`
            : `the webhook receiver is already running (pid ${result.webhook.pid})${where}`,
        );
      }
      if (result.board && 'problem' in result.board) {
        processIo.err(`warning: the board did not start: ${result.board.problem}`);
      } else if (result.board) {
        const where = result.board.url ? ` on ${result.board.url}` : '';
        processIo.out(
          result.board.started
            ? `started the board (pid ${result.board.pid})${where}`
            : `the board is already running (pid ${result.board.pid})${where}`,
        );
      }
      if (result.supervisor?.started) {
        processIo.out(`started the supervisor (pid ${result.supervisor.pid}): it restarts a part that exits`);
      }
      if (result.uiAddress) processIo.out(`web ui: ${result.uiAddress}`);
      if (result.board && 'url' in result.board && result.board.url)
        processIo.out(`board: ${result.board.url}`);
    });

  program
    .command('stop')
    .argument('[session]', 'a goal session id: stop that session (loopy stop stops the most recent one)')
    .option('--reason <text>', "with a session: why; recorded as the session's stop reason")
    .description(
      'the-loop: stop what `the-loop start` started; loopy or with a session: cancel its running iteration and end it',
    )
    .action(async (session, options) => {
      const ctx = await createContext(program.opts());
      if (session !== undefined || program.name() === 'loopy') {
        const { run } = await import('../loopy/control.js');
        process.exitCode = await run(ctx, 'stop', session, options.reason);
        return;
      }
      const { stopService } = await import('../../../service/service.js');
      const result = await stopService(ctx);
      if (result.supervisor !== 'not-running') processIo.out(`supervisor: stopped (${result.supervisor})`);
      if (result.webhook !== 'not-running') processIo.out(`webhook: stopped (${result.webhook})`);
      if (result.board !== 'not-running') processIo.out(`board: stopped (${result.board})`);
      processIo.out(
        `worker: ${result.worker === 'not-running' ? 'was not running' : `stopped (${result.worker})`}`,
      );
      processIo.out(
        `server: ${result.server === 'not-running' ? 'was not running' : `stopped (${result.server})`}`,
      );
    });

  program
    .command('status')
    .argument('[session]', 'a goal session id: show that session (loopy status shows the most recent one)')
    .description(
      'the-loop: what runs, where, which Temporal it talks to, the Web UI; loopy or with a session: that session',
    )
    .addOption(
      new Option('--format <format>', 'text or json (table or json for a session)')
        .choices(['text', 'table', 'json'] as const)
        .default('text' as const),
    )
    .action(async (session, options) => {
      const ctx = await createContext(program.opts());
      if (session !== undefined || program.name() === 'loopy') {
        const { run } = await import('../loopy/status.js');
        process.exitCode = await run(ctx, session, options.format);
        return;
      }
      const { serviceStatus } = await import('../../../service/service.js');
      const { staleEnvironmentLine } = await import('../../../work-item/status-line.js');
      const { describeContainment, probeContainment } = await import('../../../harness/containment.js');
      const { EXIT } = await import('../../../errors.js');
      const status = await serviceStatus(ctx);
      // A worker that does not answer stalls every session: scripts and monitors see it in the exit code.
      if (status.worker?.unresponsive) process.exitCode = EXIT.failure;
      // What the worker's harness runs get: probed from the worker's cgroup when one runs.
      const containment = await probeContainment(status.worker?.running ? status.worker.pid : null);
      if (options.format === 'json') processIo.out(JSON.stringify({ ...status, containment }, null, 2));
      else {
        for (const line of describeStatus(status)) processIo.out(line);
        processIo.out(describeContainment(containment));
        const stale = await staleEnvironmentLine(ctx.config, ctx.stateDir);
        if (stale) processIo.out(stale);
      }
    });

  program
    .command('dev')
    .description('run the embedded Temporal dev server and a worker in the foreground; Ctrl-C stops both')
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action(async (options) => {
      // The worker SDK is loaded only by the commands that run a worker: it costs every other command ~0.4 s.
      const { runDev } = await import('../../../service/dev.js');
      await runDev(await createContext(program.opts(), logOptionsOf(options)));
    });

  program
    .command('worker')
    .description(
      'run only a worker, against the Temporal that TEMPORAL_* variables, temporal.toml or the-loop.yaml select',
    )
    .option('--ready-file <path>', 'write this file once the worker polls (used by `the-loop start`)')
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action(async (options) => {
      const { runWorkerCommand } = await import('../../../service/worker-process.js');
      await runWorkerCommand(await createContext(program.opts(), logOptionsOf(options)), options.readyFile);
    });

  program
    .command('supervise', { hidden: true })
    .description('restart a part of the service that exits (started by `the-loop start`)')
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action(async (options) => {
      const { runSupervisor } = await import('../../../service/supervisor.js');
      await runSupervisor(await createContext(program.opts(), logOptionsOf(options)));
    });

  program
    .command('temporal-cli')
    .description('find, build or download the pinned Temporal CLI and print its path')
    .action(async () => {
      const ctx = await createContext(program.opts());
      const { resolveTemporalCli } = await import('../../../service/resolve-cli.js');
      const cli = await resolveTemporalCli({ onProgress: (line) => ctx.logger.info(line) });
      processIo.out(cli.path);
    });

  program
    .command('temporal-server')
    .description(
      'find or build the pinned Temporal server and temporal-sql-tool (for a cluster of your own) and print their paths',
    )
    .action(async () => {
      const ctx = await createContext(program.opts());
      const { resolveTemporalServer } = await import('../../../service/resolve-server.js');
      const { CliError, EXIT } = await import('../../../errors.js');
      try {
        const built = await resolveTemporalServer({ onProgress: (line) => ctx.logger.info(line) });
        processIo.out(`${built.server}\n${built.sqlTool}`);
      } catch (error) {
        throw new CliError((error as Error).message, EXIT.failure);
      }
    });
}
