import { ServiceError } from '@temporalio/client';
import { defineQuery } from '@temporalio/workflow';
import { queryWhenAnswered } from '../../../src/temporal/query-when-answered';

const statusQuery = defineQuery<string>('status');

/** What the client throws when the server's deadline passed before a worker answered (grpc code 4). */
function deadlineExceeded(): ServiceError {
  const grpc = Object.assign(new Error('4 DEADLINE_EXCEEDED: context deadline exceeded'), {
    code: 4,
    details: 'context deadline exceeded',
    metadata: {},
  });
  return new ServiceError('Failed to query Workflow', { cause: grpc });
}

/** A handle whose query fails with each of `failures` in turn, then answers 'spec'. */
function handle(...failures: Error[]) {
  const query = jest.fn(() => {
    const failure = failures.shift();
    return failure ? Promise.reject(failure) : Promise.resolve('spec');
  });
  return { query } as unknown as Parameters<typeof queryWhenAnswered>[0] & { query: jest.Mock };
}

describe('queryWhenAnswered: a status read before a command acts', () => {
  it('asks again while the query times out, and returns the answer', async () => {
    const h = handle(deadlineExceeded(), deadlineExceeded());
    await expect(queryWhenAnswered(h, statusQuery)).resolves.toBe('spec');
    expect(h.query).toHaveBeenCalledTimes(3);
  });

  it('gives up on a query that keeps timing out once its patience is spent', async () => {
    const h = handle(deadlineExceeded(), deadlineExceeded(), deadlineExceeded());
    await expect(queryWhenAnswered(h, statusQuery, 0)).rejects.toThrow('Failed to query Workflow');
    expect(h.query).toHaveBeenCalledTimes(1);
  });

  it("any other failure is the command's at once", async () => {
    const h = handle(new Error('workflow not found'));
    await expect(queryWhenAnswered(h, statusQuery)).rejects.toThrow('workflow not found');
    expect(h.query).toHaveBeenCalledTimes(1);
  });
});
