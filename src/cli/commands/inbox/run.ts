import { Option, type Command } from '@commander-js/extra-typings';
import { EXIT } from '../../../errors';
import type { GlobalOptions } from '../../../service/context';
import { runWithProcessIo, type Io } from '../../io';
import { beganLine, endedLine, INBOX_TITLES, inboxRow } from '../../inbox-lines';
import { alignColumns } from '../../table';

export type InboxOptions = GlobalOptions & { follow?: boolean; format: 'table' | 'json' };

/** How often `--follow` reads the records again. */
const FOLLOW_EVERY_MS = 1000;

export function declareCommand(program: Command<[], GlobalOptions>): void {
  program
    .command('inbox')
    .description(
      'every session that waits for a person — permission, question, gate, stuck, blocked, budget —, oldest first',
    )
    .option('--follow', 'stay open and print each new wait and each wait that ends, until Ctrl-C')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['table', 'json'] as const)
        .default('table' as const),
    )
    .action((_options, command) => runWithProcessIo(run, command.optsWithGlobals()));
}

/**
 * `the-loop inbox`: the waits, oldest first, as a table or JSON; exit 0, also when nothing waits. With `--follow`,
 * then each change as a line (JSON: one object a line), until SIGINT or SIGTERM ends it with exit 0.
 */
export async function run(options: InboxOptions, io: Io, cwd = process.cwd()): Promise<number> {
  const { createContext } = await import('../../../service/context.js');
  const { inboxKey, readInbox } = await import('../../../use-cases/inbox.js');
  const ctx = createContext({ config: options.config });
  const read = () => readInbox({ config: ctx.config, stateDir: ctx.stateDir }, cwd);
  const first = read();
  for (const bad of first.invalid) io.err(`warning: skipped ${bad.error}`);
  const now = Date.now();
  if (options.format === 'json') io.out(JSON.stringify(first.entries, null, options.follow ? 0 : 2));
  else if (first.entries.length === 0) io.err('nothing waits for you');
  else io.out(alignColumns([INBOX_TITLES, ...first.entries.map((e) => inboxRow(e, now))]).join('\n'));
  if (!options.follow) return EXIT.ok;

  let shown = new Map(first.entries.map((e) => [inboxKey(e), e]));
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const current = new Map(read().entries.map((e) => [inboxKey(e), e]));
      const at = Date.now();
      for (const [key, entry] of shown) {
        if (current.has(key)) continue;
        io.out(options.format === 'json' ? JSON.stringify({ ended: entry }) : endedLine(entry, at));
      }
      for (const [key, entry] of current) {
        if (shown.has(key)) continue;
        io.out(options.format === 'json' ? JSON.stringify({ began: entry }) : beganLine(entry, at));
      }
      shown = current;
    }, FOLLOW_EVERY_MS);
    const stop = () => {
      clearInterval(timer);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return EXIT.ok;
}
