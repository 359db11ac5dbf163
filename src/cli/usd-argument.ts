import { parseUsd } from '../config/numbers';
import { usageError } from '../errors';

/** A positive amount of USD from a flag, or a usage error naming the flag. */
export function usdArgument(flag: string, text: string): number {
  const usd = parseUsd(text, { min: 0, max: 1_000_000 });
  if (usd === null) {
    throw usageError(`${flag} ${text}: expected a positive amount in US dollars, e.g. 5 or 2.50`);
  }
  return usd;
}
