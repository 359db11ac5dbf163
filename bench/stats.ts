import { loadavg } from 'node:os';

/** Percentile by nearest rank over a copy of the samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The machine's load average (1, 5, 15 min), which every benchmark prints beside its figures. */
export const loadAverage = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
