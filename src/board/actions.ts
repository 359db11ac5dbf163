import { parseUsd } from '../config/numbers';
import { formatUsd } from '../pricing/money';
import { usageError } from '../errors';
import type { SessionsContext } from '../use-cases/context';
import type { BoardRow } from './rows';

/** One thing a person asks of a session from the board: each is what a CLI verb sends. */
export type BoardAction =
  | { action: 'allow' }
  | { action: 'deny'; reason: string | null }
  | { action: 'approve' }
  | { action: 'reject'; reason: string | null }
  | { action: 'reply'; text: string }
  | { action: 'raise'; to: number }
  | { action: 'resume' }
  | { action: 'stop' };

const MAX_TEXT = 4000;

function optionalText(form: URLSearchParams, name: string): string | null {
  const text = (form.get(name) ?? '').trim();
  return text === '' ? null : text;
}

/** A posted form as an action, or why it is not one (one line). */
export function parseAction(form: URLSearchParams): BoardAction | { error: string } {
  const action = form.get('action');
  for (const name of ['reason', 'text']) {
    if ((form.get(name) ?? '').length > MAX_TEXT)
      return { error: `${name} is longer than ${MAX_TEXT} characters` };
  }
  switch (action) {
    case 'allow':
    case 'approve':
    case 'resume':
    case 'stop':
      return { action };
    case 'deny':
    case 'reject':
      return { action, reason: optionalText(form, 'reason') };
    case 'reply': {
      const text = optionalText(form, 'text');
      return text === null ? { error: 'the answer is empty' } : { action, text };
    }
    case 'raise': {
      const to = parseUsd((form.get('to') ?? '').trim(), { min: 0, max: 1_000_000 });
      return to === null
        ? { error: 'the new budget must be an amount of US dollars, e.g. 12.50' }
        : { action, to };
    }
    default:
      return { error: `unknown action '${action ?? ''}'` };
  }
}

/** Who acts: the board's user, and `board` as where from. */
export interface Actor {
  by: string;
  via: 'board';
}

/** The session a button acts on: a work item by its ref, a goal session by its id and directory. */
export type ActionTarget = Pick<BoardRow, 'kind' | 'session' | 'sessionDir'>;

/** The use cases the board's buttons call: the same the CLI's verbs call (src/use-cases). */
export type ActionRunner = (target: ActionTarget, action: BoardAction, actor: Actor) => Promise<string>;

/** The runner on the real use cases, each loaded when first used. */
export function useCaseRunner(ctx: SessionsContext): ActionRunner {
  return async (target, action, actor) => {
    if (target.kind === 'goal') return goalAction(ctx, target, action, actor);
    const workItem = target.session;
    switch (action.action) {
      case 'allow':
      case 'deny': {
        const { answerPermissionPrompt } = await import('../use-cases/answer.js');
        const reason = action.action === 'deny' ? action.reason : null;
        const report = await answerPermissionPrompt(
          ctx,
          workItem,
          { decision: action.action, reason, always: false },
          actor,
        );
        return `${report.workItem}: ${action.action === 'allow' ? 'allowed' : 'denied'} ${report.asked}`;
      }
      case 'approve':
      case 'reject': {
        const { answerGate } = await import('../use-cases/answer.js');
        const reason = action.action === 'reject' ? action.reason : null;
        const report = await answerGate(ctx, workItem, { answer: action.action, reason }, actor);
        return `${report.workItem}: ${action.action === 'approve' ? 'approved' : 'rejected'} ${report.from} → ${report.to}`;
      }
      case 'reply': {
        const { replyToSession } = await import('../use-cases/reply.js');
        const sent = await replyToSession(ctx, workItem, action.text, actor);
        return `${sent.workItem}: answer sent`;
      }
      case 'raise': {
        const { raiseBudget } = await import('../use-cases/raise-budget.js');
        const result = await raiseBudget(ctx, { workItem }, { to: action.to });
        return `${result.of}: budget raised to ${formatUsd(result.to)}; spent so far ${formatUsd(result.spent)}`;
      }
      case 'stop': {
        const { controlSession } = await import('../use-cases/control.js');
        const result = await controlSession(ctx, workItem, 'stop', { comment: false, asker: actor });
        return result.lines[0] ?? `${result.workItem}: stopped`;
      }
      case 'resume':
        throw usageError(
          `${workItem} is a work item: answer what it waits for, or \`the-loop sessions start\``,
        );
    }
  };
}

/** A goal session's buttons: stop, resume, and an answer as `loopy update` sends it. */
async function goalAction(
  ctx: SessionsContext,
  target: ActionTarget,
  action: BoardAction,
  actor: Actor,
): Promise<string> {
  const { controlGoalSession } = await import('../use-cases/goal-control.js');
  const session = { sessionId: target.session, sessionDir: target.sessionDir };
  switch (action.action) {
    case 'stop':
    case 'resume':
      return controlGoalSession(ctx, session, { action: action.action }, actor);
    case 'reply':
      return controlGoalSession(ctx, session, { action: 'update', text: action.text }, actor);
    default:
      throw usageError(`${target.session} is a goal session: ${action.action} is for work items (use loopy)`);
  }
}
