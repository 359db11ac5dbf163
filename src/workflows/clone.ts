/** A deep copy of plain data (workflow state is JSON): what leaves the workflow must not alias what it keeps. */
export const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
