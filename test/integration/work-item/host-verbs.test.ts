import { defaultHistoryFile, recordHistory } from '../../../scripts/record-history';
import { runningWorkItem, updateFailureMessage } from '../../../src/temporal/work-items';
import { updateToEnd } from '../../../src/temporal/update-to-end';
import {
  linkPullRequestUpdate,
  restartUpdate,
  workItemWorkflowId,
} from '../../../src/workflows/work-item/messages';
import { claudeSessionId } from '../../support/ids';
import { setupWorkItemEnv, workflowStatus, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

jest.setTimeout(600_000);

const ITEM = 'github:octo/repo#90';

/** The activities a work item's workflow scheduled, by type, in order. */
async function scheduledActivities(env: WorkItemTestEnv): Promise<string[]> {
  const history = await env.client.workflow.getHandle(workItemWorkflowId(ITEM)).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

describe('updates that are one host operation run through the one host-verb activity', () => {
  let env: WorkItemTestEnv;
  beforeAll(async () => {
    env = await setupWorkItemEnv({});
  });
  afterAll(async () => env.dispose());

  it('link-pr and restart reach the host that holds the session, typed by their updates', async () => {
    const registered = await env.cli([
      'sessions',
      'register',
      '--work-item',
      ITEM,
      '--harness',
      'claude',
      '--harness-session-id',
      claudeSessionId(90),
      '--cwd',
      env.dir,
    ]);
    expect(registered.code).toBe(0);
    const live = await runningWorkItem(env.client, ITEM);
    if (!live) throw new Error(`${ITEM} has no running workflow`);

    const link = await updateToEnd(live, linkPullRequestUpdate, [{ pullRequest: 'github:octo/repo#91' }]);
    expect(link).toEqual({
      workItem: ITEM,
      pullRequest: 'github:octo/repo#91',
      alreadyRecorded: false,
      // the worker's own setting: it has no GitHub client here
      note: 'no GitHub client is configured: add the label(s) the-loop to github:octo/repo#91 by hand',
    });
    expect(env.record(ITEM)?.pull_requests).toEqual(['github:octo/repo#91']);
    const restart = await updateToEnd(live, restartUpdate, [{ dryRun: true }]);
    expect(restart).toMatchObject({ workItem: ITEM, outcome: 'skipped' });
    // a bad request is the update's failure, and the session stays up
    const refused = await updateToEnd(live, linkPullRequestUpdate, [{ pullRequest: ITEM }]).catch(
      (error: unknown) => error,
    );
    expect(updateFailureMessage(refused)).toBe(`${ITEM} cannot be linked to itself`);
    expect(await scheduledActivities(env)).toEqual([
      'workItemOpen',
      'workItemHostVerb',
      'workItemHostVerb',
      'workItemHostVerb',
    ]);

    expect((await env.cli(['sessions', 'close', '--work-item', ITEM])).code).toBe(0);
    await waitFor(
      'the workflow to complete',
      async () => (await workflowStatus(env.client, ITEM)) === 'COMPLETED',
      180_000,
    );
    // THE_LOOP_RECORD_HISTORIES=1 refreshes the replay test's history of these updates
    if (process.env.THE_LOOP_RECORD_HISTORIES === '1') {
      await recordHistory(env.client, workItemWorkflowId(ITEM), defaultHistoryFile('work-item-host-verbs'));
    }
  });
});
