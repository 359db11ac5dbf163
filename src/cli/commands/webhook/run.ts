import { rmSync } from 'node:fs';
import { Command } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../../../service/context';
import { usageError } from '../../../errors';
import { parsePort } from '../../../config/numbers';
import { logFormatOption, logLevelOption, logOptionsOf } from '../../log-options';
import { processIo } from '../../io';

/** How long a stopped receiver's process may linger on what it no longer waits for. */
const STOPPED_EXIT_AFTER_MS = 1000;

function port(text: string): number {
  const n = parsePort(text);
  if (n === null) throw usageError(`--port must be a whole number from 0 to 65535, not '${text}'`);
  return n;
}

export function registerWebhookCommands(program: Command<[], GlobalOptions>): void {
  program
    .command('webhook')
    .description(
      'receive GitHub webhook deliveries: verify X-Hub-Signature-256, dedupe, queue durably, and signal work-item sessions',
    )
    .option('--port <n>', 'port to listen on (default: webhook.port)', port)
    .option('--path <path>', 'request path (default: webhook.path)')
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--ready-file <path>', 'write this file once the receiver listens (used by `the-loop start`)')
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .action(async (options) => {
      const { createContext } = await import('../../../service/context.js');
      const { webhookSecret } = await import('../../../webhook/secret.js');
      const { serveWebhook } = await import('../../../webhook/serve.js');
      const { writeFileAtomic } = await import('../../../session/atomic.js');
      const ctx = createContext(program.opts(), logOptionsOf(options));
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
      processIo.out(`the-loop webhook: listening on ${running.url}`);
      if (options.readyFile)
        writeFileAtomic(options.readyFile, `${JSON.stringify({ pid: process.pid, url: running.url })}\n`);
      const { untilStopSignal } = await import('../../../process/until-stop-signal.js');
      await untilStopSignal();
      await running.close();
      if (options.readyFile) rmSync(options.readyFile, { force: true });
      const s = running.receiver.stats;
      processIo.out(
        `the-loop webhook: stopped — ${s.forwarded} handled, ${s.duplicate} duplicate, ${s.failed} failed, ${s.pending} left queued for the next start`,
      );
      // A forward still hanging on an unreachable host keeps its socket open and the process alive: what it did not
      // hand on is in the inbox for the next start, so the process ends (the timer fires only if something lingers).
      setTimeout(() => process.exit(), STOPPED_EXIT_AFTER_MS).unref();
    });
}
