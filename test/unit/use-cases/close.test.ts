import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { configSchema } from '../../../src/config/schema';
import type { SessionsContext } from '../../../src/use-cases/context';
import { endSession, SessionEndFailed } from '../../../src/use-cases/close';
import { readWorkItemEvents } from '../../../src/work-item/event-log';
import { workItemDirs } from '../../../src/work-item/paths';
import { readRecord, writeRecord } from '../../../src/work-item/registry';
import type { RegistryRecord } from '../../../src/work-item/schemas';
import { closeUpdate, type CloseReport } from '../../../src/workflows/work-item/messages';
import { sessionRecord } from '../../support/registry-record';

const ITEM = 'github:octo/repo#7';
const SLUG = sessionRecord(ITEM, [], null).slug;
const REQUEST = { keepTmux: null, reason: 'closed by hand' };

function context(): SessionsContext {
  return { config: configSchema.parse({}), stateDir: mkdtempSync(join(tmpdir(), 'uc-close-')) };
}

const dirs = (ctx: SessionsContext) => workItemDirs(ctx.config, ctx.stateDir);

function record(ctx: SessionsContext, status: RegistryRecord['status']): void {
  writeRecord(dirs(ctx), { ...sessionRecord(ITEM, [], null), status });
}

/**
 * Temporal's client at the network boundary: the work item's workflow is running, has ended, or was never started;
 * the close update answers with `answer`. Records which workflows were asked for and which updates were sent.
 */
function fakeTemporal(
  workflow: 'RUNNING' | 'COMPLETED' | 'none',
  answer: () => Promise<CloseReport> = () => Promise.reject(new Error('no update expected')),
) {
  const asked: string[] = [];
  const updates: { name: string; args: unknown[] }[] = [];
  const client = {
    workflow: {
      getHandle: (workflowId: string) => {
        asked.push(workflowId);
        return {
          workflowId,
          describe: () =>
            workflow === 'none'
              ? Promise.reject(new WorkflowNotFoundError('workflow not found', workflowId, undefined))
              : Promise.resolve({ status: { name: workflow } }),
          executeUpdate: (update: { name: string }, options: { args: unknown[] }) => {
            updates.push({ name: update.name, args: options.args });
            return answer();
          },
        };
      },
    },
  } as unknown as Client;
  return { client, asked, updates };
}

describe('endSession', () => {
  it('a running workflow closes the session itself: the close update carries the request, this machine does nothing', async () => {
    const ctx = context();
    record(ctx, 'active');
    const temporal = fakeTemporal('RUNNING', () =>
      Promise.resolve({
        workItem: ITEM,
        lines: ['killed tmux session x'],
        endedLiveSession: true,
        removedCheckout: '/w/octo/repo/7',
        tmuxKept: false,
      }),
    );
    const end = await endSession(ctx, temporal.client, ITEM, REQUEST);
    expect(end).toEqual({
      by: 'workflow',
      lines: ['killed tmux session x'],
      endedLiveSession: true,
      removedCheckout: '/w/octo/repo/7',
    });
    expect(temporal.asked[0]).toBe(`work-item/${ITEM}`);
    expect(temporal.updates).toEqual([{ name: closeUpdate.name, args: [REQUEST] }]);
    // the workflow writes the record (on whichever machine holds the session), not this call
    expect(readRecord(dirs(ctx), SLUG)?.status).toBe('active');
  });

  it('a dry run against a running workflow sends no update', async () => {
    const ctx = context();
    const temporal = fakeTemporal('RUNNING');
    expect(await endSession(ctx, temporal.client, ITEM, REQUEST, true)).toEqual({
      by: 'workflow',
      lines: [],
      endedLiveSession: true,
      removedCheckout: null,
    });
    expect(temporal.updates).toEqual([]);
  });

  it("the update's failure is a SessionEndFailed naming its cause, and the host does not close behind its back", async () => {
    const ctx = context();
    record(ctx, 'active');
    const temporal = fakeTemporal('RUNNING', () =>
      Promise.reject(new WorkflowUpdateFailedError('update failed', new Error('the session is mid-turn'))),
    );
    const error: unknown = await endSession(ctx, temporal.client, ITEM, REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionEndFailed);
    expect((error as Error).message).toBe('the session is mid-turn');
    expect(readRecord(dirs(ctx), SLUG)?.status).toBe('active');
  });

  it.each(['none', 'COMPLETED'] as const)(
    'with no workflow running (%s), this machine closes what its registry holds: the record closed, with the reason',
    async (workflow) => {
      const ctx = context();
      record(ctx, 'paused');
      const temporal = fakeTemporal(workflow);
      const end = await endSession(ctx, temporal.client, ITEM, REQUEST);
      expect(end).toMatchObject({ by: 'host', endedLiveSession: false, removedCheckout: null });
      expect(temporal.updates).toEqual([]);
      expect(readRecord(dirs(ctx), SLUG)).toMatchObject({
        status: 'closed',
        closed_reason: 'closed by hand',
      });
      expect(readWorkItemEvents(dirs(ctx), SLUG).map((e) => e.type)).toContain('session.closed');
    },
  );

  it('with no workflow, a dry run leaves the record open; nothing to close is said, not done', async () => {
    const ctx = context();
    expect(await endSession(ctx, fakeTemporal('none').client, ITEM, REQUEST)).toEqual({
      by: 'nothing',
      why: 'no-record',
    });
    record(ctx, 'active');
    expect(await endSession(ctx, fakeTemporal('none').client, ITEM, REQUEST, true)).toMatchObject({
      by: 'host',
    });
    expect(readRecord(dirs(ctx), SLUG)?.status).toBe('active');
    record(ctx, 'closed');
    expect(await endSession(ctx, fakeTemporal('none').client, ITEM, REQUEST)).toEqual({
      by: 'nothing',
      why: 'already-closed',
    });
  });
});
