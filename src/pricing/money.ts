/**
 * Money without float drift: every amount the-loop keeps is rounded to the nano-dollar when it is made or summed
 * (a token costs micro-dollars, so a nano-dollar keeps a token's price exact),
 * so sums of many turns stay exact to the cent and print without noise ($0.057730000000000004). Import-free:
 * workflow code keeps its ledgers with these too.
 */
const NANOS = 1_000_000_000;

/** `usd` rounded to the nano-dollar. */
export function roundUsd(usd: number): number {
  return Math.round(usd * NANOS) / NANOS;
}

/** The sum, rounded to the nano-dollar. */
export function addUsd(a: number, b: number): number {
  return Math.round(a * NANOS + b * NANOS) / NANOS;
}

/** To the cent, as every view prints money: `$0.06`. */
export function formatUsd(usd: number): string {
  return `$${(Math.round(usd * 100) / 100).toFixed(2)}`;
}

/**
 * A budget as an argument for an agent CLI: rounded down to a hundredth of a cent (never more than what is left),
 * and at least that much, as a CLI refuses a budget of zero.
 */
export function budgetArgument(usd: number): string {
  return String(Math.max(0.0001, Math.floor(Math.round(usd * NANOS) / 100_000) / 10_000));
}
