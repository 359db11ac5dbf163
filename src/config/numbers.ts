/**
 * Strict parsing of the numbers users type: plain decimal digits only. `Number()` accepts `0x10`, `1e21`, ` 7 `
 * and `''` (as 0), each of which once slipped through a flag.
 */
export function parseWholeNumber(text: string, bounds: { min: number; max: number }): number | null {
  if (!/^\d{1,15}$/.test(text)) return null;
  const n = Number(text);
  return n >= bounds.min && n <= bounds.max ? n : null;
}

/** A dollar amount: digits with up to six decimals (a turn can cost a fraction of a cent). */
export function parseUsd(text: string, bounds: { min: number; max: number }): number | null {
  if (!/^\d{1,9}(\.\d{1,6})?$/.test(text)) return null;
  const n = Number(text);
  return n > bounds.min && n <= bounds.max ? n : null;
}

export function parsePort(text: string): number | null {
  return parseWholeNumber(text, { min: 0, max: 65535 });
}
