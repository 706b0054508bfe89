/**
 * The statistics the reference extractor writes for a frame series, as Essentia's PoolAggregator
 * computes them (read from its source, written here independently of packages/core so a mistake in our
 * analysis cannot be mirrored in the reference): population variance, `stdev` its square root, the
 * median of an even count the mean of the two middle values, `dmean`/`dvar` the mean/variance of
 * |x[i+1] − x[i]| and `dmean2`/`dvar2` those of |Δ²x| (the absolute value taken after differencing
 * twice). A series of one value has derivatives [0]; so does a series of two for the second one.
 */

export const POOL_STATS = [
  'dmean',
  'dmean2',
  'dvar',
  'dvar2',
  'max',
  'mean',
  'median',
  'min',
  'stdev',
  'var',
] as const;
export type PoolStat = (typeof POOL_STATS)[number];
export type ScalarPoolStats = Record<PoolStat, number>;
export type VectorPoolStats = Record<PoolStat, number[]>;

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

function variance(values: readonly number[], m: number): number {
  let sum = 0;
  for (const v of values) sum += (v - m) ** 2;
  return sum / values.length;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  return n % 2 === 0 ? (sorted[n / 2 - 1] + sorted[n / 2]) / 2 : sorted[(n - 1) / 2];
}

/** |Δx|, or [0] when the series is too short to have a difference. */
function absDiff(values: readonly number[]): number[] {
  if (values.length < 2) return [0];
  const out = new Array<number>(values.length - 1);
  for (let i = 0; i + 1 < values.length; i++) out[i] = values[i + 1] - values[i];
  return out;
}

/** The ten statistics of one series. Throws on an empty series (the reference writes none then). */
export function aggregateSeries(values: readonly number[]): ScalarPoolStats {
  if (values.length === 0) throw new Error('aggregateSeries: empty series');
  const m = mean(values);
  const v = variance(values, m);
  const d1 = absDiff(values);
  const d2 = values.length < 3 ? [0] : absDiff(d1);
  const abs1 = d1.map(Math.abs);
  const abs2 = d2.map(Math.abs);
  const dm = mean(abs1);
  const dm2 = mean(abs2);
  let min = values[0];
  let max = values[0];
  for (const x of values) {
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return {
    dmean: dm,
    dmean2: dm2,
    dvar: variance(abs1, dm),
    dvar2: variance(abs2, dm2),
    max,
    mean: m,
    median: median(values),
    min,
    stdev: Math.sqrt(v),
    var: v,
  };
}

/** The statistics of each dimension of a series of equal-length vectors (one value per dimension). */
export function aggregateVectors(rows: readonly (readonly number[])[]): VectorPoolStats {
  if (rows.length === 0) throw new Error('aggregateVectors: empty series');
  const dims = rows[0].length;
  for (const row of rows)
    if (row.length !== dims) throw new Error(`aggregateVectors: rows of ${dims} and ${row.length} values`);
  const columns = Array.from({ length: dims }, (_, d) => aggregateSeries(rows.map((r) => r[d])));
  const out = {} as VectorPoolStats;
  for (const stat of POOL_STATS) out[stat] = columns.map((c) => c[stat]);
  return out;
}
