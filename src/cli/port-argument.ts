import { parsePort } from '../config/numbers';
import { usageError } from '../errors';

/** `--port <n>`: a TCP port from 0 to 65535, or a usage error. */
export function portArgument(text: string): number {
  const port = parsePort(text);
  if (port === null) throw usageError(`--port must be a whole number from 0 to 65535, not '${text}'`);
  return port;
}
