import { rmSync } from 'node:fs';
import type { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { EXIT, usageError } from '../../../errors';
import type { LogOptions } from '../../../log/options';
import { runWithProcessIo, type Io } from '../../io';
import { logFormatOption, logLevelOption, logOptionsOf } from '../../log-options';
import { portArgument } from '../../port-argument';

export type WebhookOptions = GlobalOptions & {
  port?: number;
  path?: string;
  host: string;
  readyFile?: string;
  logFormat: LogOptions['format'];
  logLevel: LogOptions['level'];
};

/** How long a stopped receiver's process may linger on what it no longer waits for. */
const STOPPED_EXIT_AFTER_MS = 1000;

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('webhook')
    .description(
      'receive GitHub webhook deliveries: verify X-Hub-Signature-256, dedupe, queue durably, and signal work-item sessions',
    )
    .option('--port <n>', 'port to listen on (default: webhook.port)', portArgument)
    .option('--path <path>', 'request path (default: webhook.path)')
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--ready-file <path>', 'write this file once the receiver listens (used by `the-loop start`)')
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/**
 * `the-loop webhook`: receives deliveries until SIGINT or SIGTERM, then says what it did and exits 0 (what it did
 * not hand on stays queued for the next start). Exit 2 without a secret or for a path without a leading /.
 */
export async function run(options: WebhookOptions, io: Io): Promise<number> {
  const { createContext } = await import('../../../service/context.js');
  const { webhookSecret } = await import('../../../webhook/secret.js');
  const { serveWebhook } = await import('../../../webhook/serve.js');
  const { writeFileAtomic } = await import('../../../session/atomic.js');
  const ctx = createContext({ config: options.config }, logOptionsOf(options));
  const secret = webhookSecret(ctx);
  if (!secret)
    throw usageError('no webhook secret: set THE_LOOP_WEBHOOK_SECRET or webhook.secret in the-loop.yaml');
  if (options.path !== undefined && !options.path.startsWith('/'))
    throw usageError('--path must start with /');
  const running = await serveWebhook(ctx, {
    secret,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.path !== undefined ? { path: options.path } : {}),
    host: options.host,
  });
  io.out(`the-loop webhook: listening on ${running.url}`);
  if (options.readyFile)
    writeFileAtomic(options.readyFile, `${JSON.stringify({ pid: process.pid, url: running.url })}\n`);
  const { untilStopSignal } = await import('../../../process/until-stop-signal.js');
  await untilStopSignal();
  await running.close();
  if (options.readyFile) rmSync(options.readyFile, { force: true });
  const s = running.receiver.stats;
  io.out(
    `the-loop webhook: stopped — ${s.forwarded} handled, ${s.duplicate} duplicate, ${s.failed} failed, ${s.pending} left queued for the next start`,
  );
  // A forward still hanging on an unreachable host keeps its socket open and the process alive: what it did not
  // hand on is in the inbox for the next start, so the process ends (the timer fires only if something lingers).
  setTimeout(() => process.exit(), STOPPED_EXIT_AFTER_MS).unref();
  return EXIT.ok;
}
