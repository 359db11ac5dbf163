// Its own file so that file-only commands can tell a host failure without loading tmux, git and execa.
/** A failure the caller should not retry: bad input, or a missing harness. */
export class HostError extends Error {
  constructor(
    message: string,
    readonly kind:
      'not-found' | 'bad-input' | 'missing-harness' | 'spawn-failed' | 'not-submitted' | 'failed',
  ) {
    super(message);
    this.name = 'HostError';
  }
}
