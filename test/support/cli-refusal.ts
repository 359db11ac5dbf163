import { expect } from '@jest/globals';
import { CliError } from '../../src/errors';

/** What `promise` rejected with, which must be a CliError (a resolved promise fails the test): its exit code and line. */
export async function refusal(promise: Promise<unknown>): Promise<CliError> {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}
