import os from 'node:os';

/** The machine's load average (1 / 5 / 15 min), as the benches print it beside their figures. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');
}

/** The q-quantile of the samples (nearest rank, from below), NaN for none. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}
