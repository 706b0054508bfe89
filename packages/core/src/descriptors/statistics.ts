/**
 * Frame-series statistics with Essentia's PoolAggregator semantics: population variance; `dmean`/`dvar`
 * are the mean/variance of |x[i+1] − x[i]|, `dmean2`/`dvar2` those of |Δ²x| (the absolute value is taken
 * after differencing twice, not between the two differences).
 */

import { selectKth } from './select-kth.ts';
export interface ScalarStats {
  mean: number;
  var: number;
  stdev: number;
  median: number;
  min: number;
  max: number;
  dmean: number;
  dmean2: number;
  dvar: number;
  dvar2: number;
}

export interface VectorStats {
  mean: number[];
  var: number[];
  stdev: number[];
  median: number[];
  min: number[];
  max: number[];
  dmean: number[];
  dmean2: number[];
  dvar: number[];
  dvar2: number[];
}

export const STAT_NAMES = [
  'mean',
  'var',
  'stdev',
  'median',
  'min',
  'max',
  'dmean',
  'dmean2',
  'dvar',
  'dvar2',
] as const;
export type StatName = (typeof STAT_NAMES)[number];

/** Replaces NaN/±Infinity by 0 so no statistic can leak a non-finite number into JSON. */
export function finite(x: number): number {
  return Number.isFinite(x) ? x : 0;
}

function meanVar(values: ArrayLike<number>, from: number, to: number): [number, number] {
  const n = to - from;
  if (n <= 0) return [0, 0];
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i];
  const mean = sum / n;
  let sq = 0;
  for (let i = from; i < to; i++) {
    const d = values[i] - mean;
    sq += d * d;
  }
  return [mean, sq / n];
}

/** One sort buffer for every median: the statistics run over hundreds of series, one after another. */
let sortScratch = new Float64Array(0);

export function median(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return 0;
  if (sortScratch.length < n) sortScratch = new Float64Array(n);
  const a = sortScratch.subarray(0, n);
  for (let i = 0; i < n; i++) a[i] = values[i];
  // Selection instead of a sort (the median of every series of a long sound was a visible share of the
  // analysis): the same order statistics, so the same value.
  const mid = n >> 1;
  const upper = selectKth(a, mid, 0, n - 1);
  if (n % 2) return upper;
  // Everything left of `mid` is ≤ a[mid] now: the lower middle value is their largest.
  let lower = a[0];
  for (let i = 1; i < mid; i++) if (a[i] > lower) lower = a[i];
  return (lower + upper) / 2;
}

/**
 * Mean and population variance of |Δx| (order 1) or |Δ²x| (order 2), in two passes over the series
 * without materializing the differences.
 */
function diffMeanVar(series: ArrayLike<number>, order: 1 | 2): [number, number] {
  const count = series.length - order;
  if (count <= 0) return [0, 0];
  const diff = (i: number) =>
    order === 1
      ? Math.abs(series[i + 1] - series[i])
      : Math.abs(series[i + 2] - series[i + 1] - (series[i + 1] - series[i]));
  let sum = 0;
  for (let i = 0; i < count; i++) sum += diff(i);
  const mean = sum / count;
  let sq = 0;
  for (let i = 0; i < count; i++) {
    const d = diff(i) - mean;
    sq += d * d;
  }
  return [mean, sq / count];
}

export function scalarStats(series: ArrayLike<number>): ScalarStats {
  const n = series.length;
  if (n === 0) {
    return { mean: 0, var: 0, stdev: 0, median: 0, min: 0, max: 0, dmean: 0, dmean2: 0, dvar: 0, dvar2: 0 };
  }
  const [mean, variance] = meanVar(series, 0, n);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    if (series[i] < min) min = series[i];
    if (series[i] > max) max = series[i];
  }
  const [dmean, dvar] = diffMeanVar(series, 1);
  const [dmean2, dvar2] = diffMeanVar(series, 2);
  return {
    mean: finite(mean),
    var: finite(variance),
    stdev: finite(Math.sqrt(variance)),
    median: finite(median(series)),
    min: finite(min),
    max: finite(max),
    dmean: finite(dmean),
    dmean2: finite(dmean2),
    dvar: finite(dvar),
    dvar2: finite(dvar2),
  };
}

/** Statistics per dimension of a series of equally long vectors stored frame-major in one flat array. */
export function vectorStats(flat: ArrayLike<number>, dims: number): VectorStats {
  const frames = dims > 0 ? Math.floor(flat.length / dims) : 0;
  const out: VectorStats = {
    mean: [],
    var: [],
    stdev: [],
    median: [],
    min: [],
    max: [],
    dmean: [],
    dmean2: [],
    dvar: [],
    dvar2: [],
  };
  // One column buffer per call: the column's statistics are copied out before the next one is filled.
  const column = new Float64Array(frames);
  for (let d = 0; d < dims; d++) {
    for (let f = 0; f < frames; f++) column[f] = flat[f * dims + d];
    const s = scalarStats(column);
    for (const name of STAT_NAMES) out[name].push(s[name]);
  }
  return out;
}
