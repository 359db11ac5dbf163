import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { limitsInForce } from '../budget/wait';
import { budgetFile, readBudgetFile } from '../budget/limits-file';
import { goalRoots, goalRootsDir } from '../session/goal-roots';
import { goalWaiting } from '../session/goal-waiting';
import { readJsonIfExists } from '../session/json-file';
import { sessionPaths, sessionsRoot } from '../session/paths';
import { sessionFileSchema, sessionStateFileSchema, type SessionStateFile } from '../session/schemas';
import { unpricedModelsOfState } from '../session/unpriced-models';
import { hostIdOf } from '../workflows/goal-session/host-queue';
import type { SessionsContext } from '../use-cases/context';
import { listSessions } from '../use-cases/list';
import { lastTurn } from '../use-cases/show';
import { resolveTarget } from '../temporal/target';
import { webUiAddress, workflowUiLink } from '../temporal/web-ui';
import { workItemDirs } from '../work-item/paths';
import type { WatchedDirectory } from './directory-watch';
import { oneLine, orderRows, sortKey, workItemRow, type BoardRow, type Section } from './rows';

/** What was read for each key, read again only when the key's version (a file's or a session's) changes. */
class RereadOnChange<T> {
  private readonly read = new Map<string, { version: string; value: T }>();

  get(key: string, version: string, read: () => T): T {
    const cached = this.read.get(key);
    if (cached?.version === version) return cached.value;
    const value = read();
    this.read.set(key, { version, value });
    return value;
  }
}

/**
 * Reads the board's rows from files alone (the registry through `listSessions`, budget.json, the goal sessions
 * under `cwd` and every directory `loopy run` started one from), as `sessions list` and `inbox` do. Keeps the last
 * turn's summary of each session, read again only when the session has a newer turn, so a board of a thousand
 * sessions reads a thousand small records a time.
 */
export class BoardSnapshot {
  private readonly summaries = new RereadOnChange<string | null>();
  private readonly hosts = new RereadOnChange<string | null>();
  private readonly unpricedBySession = new RereadOnChange<boolean>();
  private watched: WatchedDirectory[] = [];

  constructor(
    private readonly ctx: SessionsContext,
    private readonly cwd: string,
  ) {}

  async rows(now = new Date()): Promise<BoardRow[]> {
    const { config, stateDir } = this.ctx;
    const listed = await listSessions(this.ctx);
    const target = resolveTarget(config, stateDir);
    const ui = webUiAddress(config, target);
    const dirs = workItemDirs(config, stateDir);
    const budgets = readBudgetFile(dirs.stateRoot);
    this.watched = [
      { dir: dirs.registryDir },
      { dir: dirs.portableDir },
      { dir: dirs.stateRoot, only: basename(budgetFile(dirs.stateRoot)) },
      { dir: goalRootsDir(dirs.stateRoot) },
    ];
    const rows: BoardRow[] = listed.records.map((record) =>
      workItemRow(record, {
        node: listed.nodes.get(record.work_item) ?? null,
        summary: this.summary(
          record.session_dir,
          record.spent ? `${record.spent.last_counted.iteration}` : 'none',
        ),
        budget: limitsInForce(config, budgets, record.work_item, now).workItem,
        webUi: workflowUiLink(ui, target.namespace, record.workflow_id),
        host: hostIdOf(config.temporal.taskQueue, record.host_queue),
      }),
    );
    for (const root of goalRoots(dirs.stateRoot, this.cwd))
      rows.push(...this.goalRows(root, ui, target.namespace));
    return orderRows(rows);
  }

  /** The directories whose changes the last read depends on, for a watch that reads again on a change. */
  directories(): readonly WatchedDirectory[] {
    return this.watched;
  }

  /** A goal session's host, from session.json (rewritten when it moves), read again only when its state changed. */
  private host(sessionFile: string, version: string): string | null {
    return this.hosts.get(sessionFile, version, () => {
      try {
        const session = readJsonIfExists(sessionFile, sessionFileSchema);
        return session ? hostIdOf(session.task_queue, session.host_queue) : null;
      } catch {
        return null; // a torn or foreign session.json: no host shown
      }
    });
  }

  /**
   * Did a goal session's turns run a model without a price (their result.json files say so)? Read again only when
   * the session has a newer turn, so its cost is never shown as whole when it is not.
   */
  private unpriced(sessionDir: string, state: SessionStateFile, version: string): boolean {
    return this.unpricedBySession.get(
      sessionDir,
      version,
      () => unpricedModelsOfState(sessionDir, state).length > 0,
    );
  }

  private summary(sessionDir: string, version: string): string | null {
    return this.summaries.get(sessionDir, version, () =>
      version === 'none' ? null : oneLine(lastTurn(sessionDir)?.reply ?? null),
    );
  }

  /** The goal sessions under one directory (`.loopy_loop/sessions`), as `inbox` finds them. */
  private goalRows(cwd: string, ui: string | null, namespace: string): BoardRow[] {
    const root = sessionsRoot(cwd);
    if (!existsSync(root)) return [];
    this.watched.push({ dir: root });
    const rows: BoardRow[] = [];
    for (const id of readdirSync(root)) {
      const paths = sessionPaths(join(root, id));
      this.watched.push({ dir: paths.dir, only: basename(paths.state) });
      let state;
      try {
        state = readJsonIfExists(paths.state, sessionStateFileSchema);
      } catch {
        continue; // a torn or foreign state.json: `loopy list` names it
      }
      if (!state) continue;
      const waiting = goalWaiting(state);
      const section: Section = waiting
        ? 'needs'
        : state.status === 'stopped'
          ? 'ended'
          : state.status === 'queued' || state.status === 'starting'
            ? 'queued'
            : 'running';
      const since = waiting?.since ?? state.updated_at;
      // what was read from its turns' files is read again only when it has a newer turn
      const turnVersion = `${state.iteration} ${state.updated_at}`;
      rows.push({
        id: `g-${id}`,
        kind: 'goal',
        section,
        sort: sortKey(section, since, id),
        session: id,
        goal: goalLine(paths.goal),
        status: waiting ? `waiting: ${waiting.reason}` : state.status,
        waiting,
        node: null,
        turns: state.iteration,
        summary: this.summary(paths.dir, turnVersion),
        cost: {
          usd: state.usage.total.cost_usd,
          unpriced: this.unpriced(paths.dir, state, turnVersion),
        },
        budget: null,
        pullRequests: [],
        since,
        webUi: workflowUiLink(ui, namespace, id),
        sessionDir: paths.dir,
        attach: null,
        host: this.host(paths.session, state.updated_at),
      });
    }
    return rows;
  }
}

function goalLine(file: string): string | null {
  try {
    return oneLine(readFileSync(file, 'utf8'), 100);
  } catch {
    return null;
  }
}
