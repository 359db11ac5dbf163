import { appendFileSync, readFileSync } from 'node:fs';
import { Command, Option } from '@commander-js/extra-typings';
import type { Client } from '@temporalio/client';
import { readJsonIfExists } from '../../session/json-file';
import { readJsonl } from '../../session/jsonl';
import { mergeHistory } from '../../session/history';
import { sessionPaths, sessionsRoot } from '../../session/paths';
import { sessionEventSchema, sessionStateFileSchema, type SessionStateFile } from '../../session/schemas';
import type { goalSession } from '../../workflows/goal-session';
import {
  pauseSignal,
  resumeSignal,
  statusQuery,
  stopSignal,
  userUpdateSignal,
} from '../../workflows/goal-session-messages';
import type { StopKind } from '../../workflows/goal-session-types';
import { createContext, type CliContext, type GlobalOptions } from '../../service/context';
import { connectExisting, connectOrStart, workflowUiLink } from '../../service/ensure-service';
import { CliError, EXIT, usageError } from '../../errors';
import { followEvents, printEvent, type EventFormat } from '../follow-session';
import {
  describeState,
  listStatusCell,
  listStatusFilters,
  matchesListStatus,
  statusLines,
} from '../format-session';
import { alignColumns } from '../table';
import { listSessionIds, locateSession } from '../locate-session';
import { loadSessionTree, renderSessionTree } from '../session-tree';
import { validateRunOptions } from '../run-options';
import { buildSessionInput } from '../session-input';
import { startGoalSession } from '../start-session';

const LIMIT_STOPS: readonly StopKind[] = ['max_iterations', 'budget', 'max_duration', 'consecutive_failures'];

function exitCodeFor(kind: StopKind): number {
  if (kind === 'error') return EXIT.failure;
  return LIMIT_STOPS.includes(kind) ? EXIT.limit : EXIT.ok;
}

function readState(sessionDir: string): SessionStateFile | null {
  return readJsonIfExists(sessionPaths(sessionDir).state, sessionStateFileSchema);
}

function readGoal(sessionDir: string): string {
  try {
    return readFileSync(sessionPaths(sessionDir).goal, 'utf8');
  } catch {
    return '';
  }
}

/** The live state from the workflow when a worker answers quickly, else the state.json projection. */
async function liveState(
  client: Client,
  sessionId: string,
  deadlineMs = 2500,
): Promise<{ state: SessionStateFile; source: 'live' } | null> {
  try {
    const handle = client.workflow.getHandle<typeof goalSession>(sessionId);
    const state = await client.connection.withDeadline(Date.now() + deadlineMs, () =>
      handle.query(statusQuery),
    );
    return { state, source: 'live' };
  } catch {
    return null;
  }
}

function parseFormat<T extends string>(value: string, allowed: readonly T[], flag = '--format'): T {
  if (!(allowed as readonly string[]).includes(value))
    throw usageError(`${flag} ${value}: use ${allowed.join(' or ')}`);
  return value as T;
}

async function runCommand(ctx: CliContext, raw: Parameters<typeof validateRunOptions>[0]): Promise<number> {
  const options = validateRunOptions(raw, ctx.config, process.cwd());
  const { sessionHarnessProblem } = await import('../../harness/preflight.js');
  const harnessProblem = await sessionHarnessProblem(options.harness, options.routines, ctx.config);
  if (harnessProblem) throw usageError(harnessProblem);
  const connected = await connectOrStart(ctx);
  try {
    const input = buildSessionInput(ctx.config, {
      goal: options.goal,
      cwd: options.cwd,
      harness: options.harness,
      harnessCommand: options.harnessCommand,
      routines: options.routines,
      routinesFile: options.routinesFile,
      maxIterations: options.maxIterations,
      maxCostUsd: options.maxCostUsd,
      maxDurationMs: options.maxDurationMs,
    });
    const handle = await startGoalSession(connected.client, input);
    const link = workflowUiLink(connected.uiAddress, connected.target.namespace, input.sessionId);
    if (options.detach) {
      console.log(input.sessionId);
      return EXIT.ok;
    }
    if (options.format === 'text') {
      console.log(`session ${input.sessionId}`);
      console.log(`directory ${input.sessionDir}`);
      if (link) console.log(`web ui ${link}`);
    }
    const detach = new AbortController();
    const onSigint = () => detach.abort();
    process.once('SIGINT', onSigint);
    const result = await followEvents(input.sessionDir, options.format, {
      handle,
      signal: detach.signal,
      untilStopped: true,
    });
    process.removeListener('SIGINT', onSigint);
    if (detach.signal.aborted && !result) {
      process.stderr.write(
        `detached — session ${input.sessionId} keeps running (\`loopy status ${input.sessionId}\`, \`loopy stop ${input.sessionId}\`)\n`,
      );
      return EXIT.ok;
    }
    return result ? exitCodeFor(result.stop.kind) : EXIT.ok;
  } finally {
    await connected.close();
  }
}

type ControlVerb = 'pause' | 'resume' | 'stop';

export async function controlCommand(
  ctx: CliContext,
  verb: ControlVerb,
  id: string | undefined,
  reason?: string,
): Promise<number> {
  const cwd = process.cwd();
  const connected = await connectExisting(ctx);
  try {
    const located = await locateSession(cwd, id, async () => connected.client);
    const handle = connected.client.workflow.getHandle<typeof goalSession>(located.sessionId);
    let description;
    try {
      description = await handle.describe();
    } catch {
      throw new CliError(
        `session ${located.sessionId} is not known to Temporal at ${connected.target.address}`,
        EXIT.usage,
      );
    }
    if (description.status.name !== 'RUNNING') {
      const state = readState(located.sessionDir);
      console.log(
        `session ${located.sessionId} has already ended — ${state ? describeState(state) : description.status.name.toLowerCase()}`,
      );
      return verb === 'stop' ? EXIT.ok : EXIT.failure;
    }
    if (verb === 'pause') await handle.signal(pauseSignal);
    else if (verb === 'resume') await handle.signal(resumeSignal);
    else await handle.signal(stopSignal, { reason, by: 'user' });
    const live = await liveState(connected.client, located.sessionId);
    if (live) {
      console.log(`${verb} sent — session ${located.sessionId} is ${describeState(live.state)}`);
    } else {
      const state = readState(located.sessionDir);
      console.log(
        `${verb} recorded — no worker answered, so it takes effect when one runs; session ${located.sessionId} was last ${state ? describeState(state) : 'starting'}`,
      );
    }
    return EXIT.ok;
  } finally {
    await connected.close();
  }
}

/** `loopy status [session]` (and `the-loop status <session>`): the live state when a worker answers, else state.json. */
export async function sessionStatus(
  ctx: CliContext,
  session: string | undefined,
  formatOption: string,
): Promise<void> {
  const format = parseFormat(formatOption, ['table', 'json', 'text'] as const);
  const connected = await connectExisting(ctx, 3000).catch(() => null);
  try {
    const client = connected?.client;
    const located = await locateSession(process.cwd(), session, client ? async () => client : undefined);
    const live = client ? await liveState(client, located.sessionId) : null;
    const projected = readState(located.sessionDir);
    // A session that continued as new holds only its newest history entries; state.json has them all.
    const state = live
      ? { ...live.state, history: mergeHistory(projected?.history ?? [], live.state.history) }
      : projected;
    if (!state)
      throw new CliError(`session ${located.sessionId} has no state.json yet (is a worker running?)`);
    const link = connected
      ? workflowUiLink(connected.uiAddress, connected.target.namespace, located.sessionId)
      : null;
    if (format === 'json') {
      console.log(
        JSON.stringify(
          { session_dir: located.sessionDir, source: live ? 'live' : 'state.json', state },
          null,
          2,
        ),
      );
    } else {
      for (const line of statusLines(located.sessionDir, readGoal(located.sessionDir), state, link))
        console.log(line);
      if (!live) console.log('source      state.json (no worker answered; live state unavailable)');
      const liveStates = new Map(live ? [[located.sessionId, live.state]] : []);
      const tree = loadSessionTree(located.sessionDir, { liveStates });
      if (tree.children.length > 0) {
        console.log('');
        process.stdout.write(renderSessionTree(tree));
      }
    }
  } finally {
    await connected?.close();
  }
}

export function registerLoopyCommands(program: Command<[], GlobalOptions>): void {
  program
    .command('run')
    .description(
      'start a goal session and follow its events until it ends (Ctrl-C detaches; the session keeps running)',
    )
    .option('--goal <text>', 'what the session should achieve')
    .option('--goal-file <file>', 'read the goal from a file')
    .option(
      '--harness <name>',
      'claude, cursor, codex or command (default: harness.default in the-loop.yaml, else claude)',
    )
    .option(
      '--harness-command <cmd>',
      "the command harness's command line; placeholders {prompt_file} {session_dir} {iteration_dir} {goal_file}",
    )
    .option(
      '--workflows <file>',
      'loop workflows YAML (default: the built-in planner / worker / goal_check set)',
    )
    .option('--max-iterations <n>', 'stop after this many iterations (default: session.maxIterations, 100)')
    .option('--max-cost-usd <usd>', 'stop once the session (with its children) has spent this much')
    .option('--max-duration <duration>', 'stop dispatching after this long, e.g. 2h or 45m')
    .option(
      '--cwd <dir>',
      'the working directory; the session directory goes under <dir>/.loopy_loop/sessions/',
      '.',
    )
    .option('--detach', 'print the session id and return at once')
    .addOption(new Option('--format <format>', 'text or jsonl').default('text'))
    .action(async (options) => {
      process.exitCode = await runCommand(createContext(program.opts()), options);
    });

  for (const verb of ['pause', 'resume'] as const) {
    const cmd = program
      .command(verb)
      .argument('[session]', 'session id (default: the most recent session under the current directory)')
      .description(
        {
          pause: 'let the running iteration finish, then dispatch nothing until resume',
          resume: 'dispatch again after a pause',
        }[verb],
      );
    cmd.action(async (session) => {
      process.exitCode = await controlCommand(createContext(program.opts()), verb, session);
    });
  }

  program
    .command('update')
    .argument('<session>', 'session id')
    .argument('<text...>', 'the request; appended to updates_from_user.md')
    .description(
      "append a request to the session's updates_from_user.md: the next iteration's highest-priority input",
    )
    .action(async (session, words) => {
      const ctx = createContext(program.opts());
      const text = words.join(' ').trim();
      if (!text) throw usageError('the update is empty: say what should change');
      const connected = await connectExisting(ctx);
      try {
        const located = await locateSession(process.cwd(), session, async () => connected.client);
        const handle = connected.client.workflow.getHandle<typeof goalSession>(located.sessionId);
        const description = await handle.describe();
        if (description.status.name !== 'RUNNING') {
          throw new CliError(
            `session ${located.sessionId} has ended; nothing would read the update`,
            EXIT.failure,
          );
        }
        const entry = `${text}\n`;
        appendFileSync(sessionPaths(located.sessionDir).updatesFromUser, entry);
        await handle.signal(userUpdateSignal, { bytes: Buffer.byteLength(entry) });
        console.log(
          `update appended to ${sessionPaths(located.sessionDir).updatesFromUser}; the next iteration reads it first`,
        );
      } finally {
        await connected.close();
      }
    });

  program
    .command('list')
    .description('the sessions under the current directory')
    .addOption(
      new Option(
        '--status <status>',
        'starting, running, paused or stopped (finished: stopped through control.json)',
      ),
    )
    .addOption(new Option('--format <format>', 'table or json').default('table'))
    .action((options) => {
      createContext(program.opts());
      const format = parseFormat(options.format, ['table', 'json'] as const);
      const wanted =
        options.status === undefined ? null : parseFormat(options.status, listStatusFilters, '--status');
      const root = sessionsRoot(process.cwd());
      const rows = listSessionIds(process.cwd())
        .map((id) => {
          const dir = `${root}/${id}`;
          const state = readState(dir);
          return { id, dir, state, goal: readGoal(dir).trim().split('\n')[0] ?? '' };
        })
        .filter((row) => row.state && (wanted === null || matchesListStatus(row.state, wanted)))
        .reverse();
      if (format === 'json') {
        console.log(
          JSON.stringify(
            rows.map((r) => ({
              session_id: r.id,
              status: r.state?.status ?? 'unknown',
              iterations: r.state?.iteration ?? 0,
              cost_usd: r.state?.usage.total.cost_usd ?? 0,
              stop: r.state?.stop ?? null,
              started_at: r.state?.started_at ?? null,
              goal: r.goal,
              session_dir: r.dir,
            })),
            null,
            2,
          ),
        );
        return;
      }
      if (rows.length === 0) {
        console.log(wanted ? `no ${wanted} sessions under ${root}` : `no sessions under ${root}`);
        return;
      }
      const lines = alignColumns([
        ['SESSION', 'STATUS', 'ITER', 'COST', 'GOAL'],
        ...rows.map((r) => [
          r.id,
          r.state ? listStatusCell(r.state) : '?',
          String(r.state?.iteration ?? 0),
          `$${(r.state?.usage.total.cost_usd ?? 0).toFixed(2)}`,
          r.goal.length > 60 ? `${r.goal.slice(0, 59)}…` : r.goal,
        ]),
      ]);
      for (const line of lines) console.log(line);
    });

  program
    .command('events')
    .argument('[session]', 'session id (default: the most recent session under the current directory)')
    .description("print the session's events.jsonl; --follow keeps printing until the session stops")
    .option('--follow', 'keep printing new events (tolerates a torn last line)')
    .addOption(new Option('--format <format>', 'text or jsonl').default('text'))
    .action(async (session, options) => {
      createContext(program.opts());
      const format = parseFormat<EventFormat>(options.format, ['text', 'jsonl'] as const);
      const located = await locateSession(process.cwd(), session);
      if (!options.follow) {
        const seen = new Set<number>();
        for (const event of readJsonl(sessionPaths(located.sessionDir).events, sessionEventSchema)) {
          if (seen.has(event.seq)) continue;
          seen.add(event.seq);
          printEvent(event, format);
        }
        return;
      }
      const detach = new AbortController();
      process.once('SIGINT', () => detach.abort());
      await followEvents(located.sessionDir, format, { signal: detach.signal, untilStopped: true });
    });
}
