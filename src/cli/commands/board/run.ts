import { readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Command } from '@commander-js/extra-typings';
import { CliError, EXIT, usageError } from '../../../errors';
import type { LogOptions } from '../../../log/options';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo, type Io } from '../../io';
import { logFormatOption, logLevelOption, logOptionsOf } from '../../log-options';
import { portArgument } from '../../port-argument';

export type BoardOptions = GlobalOptions & {
  port?: number;
  host?: string;
  readyFile?: string;
  link?: true;
  logFormat: LogOptions['format'];
  logLevel: LogOptions['level'];
};

/** Serves the board in the foreground, as `the-loop start` does in the background, or prints a link. */
export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('board')
    .description(
      'serve the board — every session, what waits for you, live — or with --link print a one-time login link',
    )
    .option('--port <n>', 'port to listen on (default: board.port; 0 here: any free port)', portArgument)
    .option(
      '--host <address>',
      'address to bind (default: board.host); off loopback, board.token is required',
    )
    .option('--ready-file <path>', 'write this file once the board listens (used by `the-loop start`)')
    .option('--link', 'print a one-time link that logs a browser in to the running board (needs board.token)')
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/** The board's address as a browser elsewhere reaches it: a wildcard bind is named by this machine's name. */
function reachable(url: string): string {
  return url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, `http://${hostname()}`);
}

/**
 * `the-loop board`: serves the board until SIGINT or SIGTERM (exit 0); with `--link`, prints a one-time login link
 * to the running board and exits. Exit 2 for bad input (a non-loopback host without a token, --link without one).
 */
export async function run(options: BoardOptions, io: Io): Promise<number> {
  const { createContext } = await import('../../../service/context.js');
  const { boardToken, MIN_TOKEN_CHARS } = await import('../../../board/token.js');
  const ctx = createContext({ config: options.config }, logOptionsOf(options));
  const token = boardToken(ctx.config);
  if (token !== null && token.length < MIN_TOKEN_CHARS)
    throw usageError(`the board's token must be at least ${MIN_TOKEN_CHARS} characters`);
  const host = options.host ?? ctx.config.board.host;
  const { boardPort } = await import('../../../board/port.js');
  const port = options.port ?? boardPort(ctx.config);
  if (options.link) return printLink(ctx.stateDir, token, host, port, io);
  const { isLoopback } = await import('../../../board/auth.js');
  if (!isLoopback(host) && token === null)
    throw usageError(`board.host ${host} is not loopback: set board.token (or THE_LOOP_BOARD_TOKEN) first`);
  if (options.port === undefined && port === 0)
    throw usageError('the board is off (board.port or THE_LOOP_BOARD_PORT is 0): give --port');
  const { serveBoard } = await import('../../../board/server.js');
  const { localUser } = await import('../../../use-cases/context.js');
  const { writeFileAtomic } = await import('../../../session/atomic.js');
  const { resolveTarget } = await import('../../../temporal/target.js');
  const { webUiAddress } = await import('../../../temporal/web-ui.js');
  let board;
  try {
    board = await serveBoard({
      ctx: { config: ctx.config, stateDir: ctx.stateDir },
      cwd: process.cwd(),
      host,
      port,
      token,
      actor: { by: localUser(), via: 'board' },
      logger: ctx.logger,
      webUi: webUiAddress(ctx.config, resolveTarget(ctx.config, ctx.stateDir)),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new CliError(`could not serve the board: ${host}:${port} is in use`, EXIT.failure);
    if (code === 'EADDRNOTAVAIL')
      throw usageError(`could not serve the board: ${host} is not an address of this machine`);
    throw error;
  }
  io.out(`the-loop board: serving on ${board.url}`);
  if (options.readyFile)
    writeFileAtomic(options.readyFile, `${JSON.stringify({ pid: process.pid, url: board.url })}\n`);
  const { untilStopSignal } = await import('../../../process/until-stop-signal.js');
  await untilStopSignal();
  await board.close();
  if (options.readyFile) rmSync(options.readyFile, { force: true });
  io.out('the-loop board: stopped');
  return EXIT.ok;
}

/** The one place the token's credential is printed, on purpose: a link that works once, for ten minutes. */
async function printLink(
  stateDir: string,
  token: string | null,
  host: string,
  port: number,
  io: Io,
): Promise<number> {
  if (token === null)
    throw usageError('the board has no token (board.token or THE_LOOP_BOARD_TOKEN): it needs no link');
  const { servicePaths } = await import('../../../service/service-processes.js');
  const { signLinkPath } = await import('../../../board/auth.js');
  let base: string | null = null;
  try {
    const ready = JSON.parse(readFileSync(servicePaths(stateDir).boardReady, 'utf8')) as { url?: unknown };
    if (typeof ready.url === 'string') base = ready.url;
  } catch {
    // no board started by `the-loop start`: the configured address
  }
  base ??= `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
  io.out(`${reachable(base).replace(/\/$/, '')}${signLinkPath(token, Date.now())}`);
  return EXIT.ok;
}
