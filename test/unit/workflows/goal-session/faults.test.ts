import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { fileFault, withFileFaults } from '../../../../src/activities/file-faults';
import {
  blockDispatch,
  faultStop,
  fileFaultOf,
  fileWriteFailureOf,
  pausedDetails,
  SESSION_FILE_FAULT,
} from '../../../../src/workflows/goal-session/faults';

function errnoError(code: string, message: string, path?: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(message);
  error.code = code;
  if (path) error.path = path;
  return error;
}

describe('file-system faults in session files', () => {
  test('ENOSPC, EROFS and EACCES become a non-retryable SessionFileFault naming the code and the path', () => {
    for (const code of ['ENOSPC', 'EROFS', 'EACCES']) {
      const failure = fileFault(
        errnoError(code, `${code}: it failed, open '/s/state.json'`, '/s/state.json'),
      );
      expect(failure).toMatchObject({
        type: SESSION_FILE_FAULT,
        nonRetryable: true,
        message: `the session's files cannot be written: ${code}: it failed, open '/s/state.json'`,
        details: [{ code, path: '/s/state.json' }],
      });
    }
  });

  test('any other error is left as it is, to be retried', async () => {
    expect(fileFault(errnoError('ENOENT', 'ENOENT: gone'))).toBeNull();
    expect(fileFault(new Error('plain'))).toBeNull();
    const unsettled = ApplicationFailure.retryable('orphans', 'UnsettledWorkers');
    const activities = withFileFaults({
      ok: async (n: number) => n + 1,
      full: async () => {
        throw errnoError('ENOSPC', 'ENOSPC: no space left on device, write');
      },
      busy: async () => {
        throw unsettled;
      },
    });
    await expect(activities.ok(1)).resolves.toBe(2);
    await expect(activities.full()).rejects.toMatchObject({ type: SESSION_FILE_FAULT, nonRetryable: true });
    await expect(activities.busy()).rejects.toBe(unsettled);
  });

  test("the workflow stops on a SessionFileFault inside an activity's failure, and only on that", () => {
    const cause = fileFault(errnoError('EROFS', 'EROFS: read-only file system, open /s/x'));
    const failed = new ActivityFailure(
      'activity failed',
      'runIteration',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      'worker',
      cause ?? undefined,
    );
    expect(faultStop(failed)).toEqual({
      kind: 'error',
      reason: "the session's files cannot be written: EROFS: read-only file system, open /s/x",
    });
    const other = new ActivityFailure(
      'activity failed',
      'runIteration',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      'worker',
      ApplicationFailure.nonRetryable('bad harness', 'BadInput'),
    );
    expect(faultStop(other)).toBeNull();
    expect(faultStop(new Error('x'))).toBeNull();
    expect(faultStop(null)).toBeNull();
  });

  test('the fault as the workflow blocks on it: reason, path and code from the failure inside the activity failure', () => {
    const cause = fileFault(errnoError('ENOSPC', 'ENOSPC: no space left on device, write', '/s/state.json'));
    const failed = new ActivityFailure(
      'activity failed',
      'runIteration',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      'worker',
      cause ?? undefined,
    );
    const fault = fileFaultOf(failed);
    expect(fault).toEqual({
      reason: "the session's files cannot be written: ENOSPC: no space left on device, write",
      path: '/s/state.json',
      code: 'ENOSPC',
    });
    expect(fileWriteFailureOf(failed)).toEqual(fault);
    const dispatch = { paused: false, blocked: null };
    expect(blockDispatch(dispatch, fault!, 3, '2026-01-01T00:00:00.000Z')).toEqual({
      iteration: 3,
      data: fault,
    });
    const blocked = { ...fault!, iteration: 3, at: '2026-01-01T00:00:00.000Z' };
    expect(dispatch).toEqual({ paused: true, blocked });
    expect(
      pausedDetails({
        iteration: 3,
        dispatch: { active_iteration: null, paused: true, next_routine_id: null, blocked },
      }),
    ).toBe(
      "blocked: the session's files cannot be written: ENOSPC: no space left on device, write (/s/state.json); iteration 3 waits — fix it, then run loopy resume",
    );
    expect(
      pausedDetails({
        iteration: 3,
        dispatch: { active_iteration: null, paused: true, next_routine_id: null },
      }),
    ).toBe('paused after iteration 3');
    const budget = {
      detail: 'the fleet (UTC day 2026-01-01) spent $0.30 of its $0.10 budget',
      at: '2026-01-01T00:00:00.000Z',
    };
    const atBudget = { active_iteration: null, paused: true, next_routine_id: null, budget };
    expect(pausedDetails({ iteration: 3, dispatch: atBudget })).toBe(`waiting: budget — ${budget.detail}`);
    // a fault says first what keeps the session paused
    expect(pausedDetails({ iteration: 3, dispatch: { ...atBudget, blocked } })).toMatch(/^blocked: /);
  });

  test('a file write that failed every attempt it was allowed blocks too; a turn that failed does not', () => {
    const exhausted = new ActivityFailure(
      'activity failed',
      'flush',
      '7',
      RetryState.MAXIMUM_ATTEMPTS_REACHED,
      'worker',
      ApplicationFailure.retryable('EIO: i/o error, write', 'Error'),
    );
    expect(fileWriteFailureOf(exhausted)).toEqual({
      reason: "the session's files could not be written, attempts exhausted: EIO: i/o error, write",
      path: null,
      code: null,
    });
    expect(fileFaultOf(exhausted)).toBeNull(); // a turn is never blocked by it: only a file fault blocks a turn
    const badInput = new ActivityFailure(
      'activity failed',
      'runIteration',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      'worker',
      ApplicationFailure.nonRetryable('bad harness', 'BadInput'),
    );
    expect(fileWriteFailureOf(badInput)).toBeNull();
  });
});
