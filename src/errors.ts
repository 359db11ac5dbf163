/** Exit codes shared by every command (documented in the README). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** A session ended on a limit: max iterations, budget, duration or consecutive failures. */
  limit: 3,
  /** The Temporal service could not be reached. */
  unavailable: 4,
} as const;

/** An error the CLI prints as one line and turns into an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

/** The first line of an error's message: what a one-line report shows (a multi-line cause or dump stays out). */
export function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? '';
}

/** Is this a Node.js system error with that errno code (ENOENT, EPERM…)? */
export function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}
