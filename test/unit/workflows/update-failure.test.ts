import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { asUpdateFailure, causeMessage } from '../../../src/workflows/update-failure';

const activityFailure = (cause: Error) =>
  new ActivityFailure(
    'Activity task failed',
    'workItemSpawn',
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    'w',
    cause,
  );

describe('update failures', () => {
  it("carry the activity's own message and error type, not the wrapper's", () => {
    const failure = asUpdateFailure(
      activityFailure(ApplicationFailure.nonRetryable('no such work item', 'WorkItemBadInput')),
    );
    expect(failure.message).toBe('no such work item');
    expect(failure.type).toBe('WorkItemBadInput');
    expect(failure.nonRetryable).toBe(true);
  });

  it('fall back to the given type when the cause has none', () => {
    const failure = asUpdateFailure(activityFailure(new Error('tmux: no server running')));
    expect(failure.message).toBe('tmux: no server running');
    expect(failure.type).toBe('WorkItemError');
    expect(asUpdateFailure(new Error('plain'), 'Other').type).toBe('Other');
  });

  it('pass an application failure through as it is', () => {
    const own = ApplicationFailure.nonRetryable('already open', 'WorkItemOpenFailed');
    expect(asUpdateFailure(own)).toBe(own);
  });

  it('read the root cause of anything thrown', () => {
    expect(causeMessage(activityFailure(new Error('disk full')))).toBe('disk full');
    expect(causeMessage('a string')).toBe('a string');
    expect(causeMessage(42)).toBe('42');
  });
});
