/**
 * Frame-series statistics with Essentia's PoolAggregator semantics: population variance; `dmean`/`dvar`
 * are the mean/variance of |x[i+1] − x[i]|, `dmean2`/`dvar2` those of |Δ²x| (the absolute value is taken
 * after differencing twice, not between the two differences).
 */
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

function median(values: ArrayLike<number>): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
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
  const d1 = new Float64Array(Math.max(0, n - 1));
  const d1abs = new Float64Array(d1.length);
  for (let i = 0; i + 1 < n; i++) {
    d1[i] = series[i + 1] - series[i];
    d1abs[i] = Math.abs(d1[i]);
  }
  const d2abs = new Float64Array(Math.max(0, n - 2));
  for (let i = 0; i + 1 < d1.length; i++) d2abs[i] = Math.abs(d1[i + 1] - d1[i]);
  const [dmean, dvar] = meanVar(d1abs, 0, d1abs.length);
  const [dmean2, dvar2] = meanVar(d2abs, 0, d2abs.length);
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
  const column = new Float64Array(frames);
  for (let d = 0; d < dims; d++) {
    for (let f = 0; f < frames; f++) column[f] = flat[f * dims + d];
    const s = scalarStats(column);
    for (const name of STAT_NAMES) out[name].push(s[name]);
  }
  return out;
}
