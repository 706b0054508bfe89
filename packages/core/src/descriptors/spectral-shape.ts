/**
 * Scalar features of one spectrum (or any non-negative distribution). Each takes the array and returns a
 * finite number; an all-zero input yields the value of a silent frame (0), never NaN.
 */

const EPS = 1e-20;

export interface Moments {
  centroid: number;
  spread: number;
  skewness: number;
  kurtosis: number;
}

/**
 * Centroid and shape of a distribution over [0, range] (Essentia's Centroid + CentralMoments +
 * DistributionShape): spread is the 2nd central moment (range² units), skewness m3/m2^1.5, kurtosis m4/m2² − 3.
 */
export function moments(x: ArrayLike<number>, range: number, length = x.length): Moments {
  if (length < 2) return { centroid: 0, spread: 0, skewness: 0, kurtosis: 0 };
  const step = range / (length - 1);
  let sum = 0;
  let weighted = 0;
  for (let i = 0; i < length; i++) {
    sum += x[i];
    weighted += i * x[i];
  }
  if (sum <= EPS) return { centroid: 0, spread: 0, skewness: 0, kurtosis: 0 };
  const c = weighted / sum;
  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  for (let i = 0; i < length; i++) {
    const d = i - c;
    const d2 = d * d * x[i];
    m2 += d2;
    m3 += d2 * d;
    m4 += d2 * d * d;
  }
  m2 /= sum;
  m3 /= sum;
  m4 /= sum;
  const spread = m2 * step * step;
  const skewness = m2 > EPS ? m3 / m2 ** 1.5 : 0;
  const kurtosis = m2 > EPS ? m4 / (m2 * m2) - 3 : -3;
  return { centroid: c * step, spread, skewness, kurtosis };
}

export function sum(x: ArrayLike<number>, from = 0, to = x.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i];
  return s;
}

/** max / arithmetic mean. */
export function crest(x: ArrayLike<number>): number {
  let max = 0;
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    s += x[i];
    if (x[i] > max) max = x[i];
  }
  return s > EPS ? (max * x.length) / s : 0;
}

/**
 * Essentia's FlatnessDB: −10·log10(geometric mean / arithmetic mean) / 60, clipped to [0, 1]. Despite the name
 * it rises with peakiness: 0 for a flat (noise-like) distribution, 1 for a single peak.
 */
export function flatnessDb(x: ArrayLike<number>): number {
  const n = x.length;
  if (n === 0) return 0;
  // Σ log v = log Π v: the values are multiplied and a logarithm taken only when the product leaves
  // [1e-200, 1e200] (each factor is ≥ 1e-30, so it cannot underflow first), not one per value, which was
  // the costly step; the sum matches up to rounding.
  let logSum = 0;
  let product = 1;
  let s = 0;
  for (let i = 0; i < n; i++) {
    const v = x[i];
    s += v;
    product *= Math.max(v, 1e-30);
    if (product < 1e-200 || product > 1e200) {
      logSum += Math.log(product);
      product = 1;
    }
  }
  logSum += Math.log(product);
  // A silent frame counts as flat (Essentia fills silent frames with faint noise for the same effect).
  if (s <= EPS) return 0;
  const geometric = Math.exp(logSum / n);
  const ratio = geometric / (s / n);
  const db = -10 * Math.log10(Math.max(ratio, 1e-30));
  return Math.min(1, Math.max(0, db / 60));
}

/** Shannon entropy (bits) of x normalized to a probability distribution. */
export function entropy(x: ArrayLike<number>): number {
  const s = sum(x);
  if (s <= EPS) return 0;
  let h = 0;
  for (let i = 0; i < x.length; i++) {
    const p = x[i] / s;
    if (p > 0) h -= p * Math.log2(p);
  }
  return h;
}

/** Frequency (Hz) below which `cutoff` of the power lies. */
export function rolloff(power: ArrayLike<number>, binHz: number, cutoff = 0.85): number {
  const total = sum(power);
  if (total <= EPS) return 0;
  const target = total * cutoff;
  let acc = 0;
  for (let k = 0; k < power.length; k++) {
    acc += power[k];
    if (acc >= target) return k * binHz;
  }
  return (power.length - 1) * binHz;
}

/**
 * Spectral decrease as Essentia computes it: the slope of the least-squares line through the values
 * over [0, range] (for a power spectrum, power per Hz; negative when the energy sits low).
 */
export function decrease(x: ArrayLike<number>, range: number): number {
  const n = x.length;
  if (n < 2) return 0;
  const step = range / (n - 1);
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let k = 0; k < n; k++) {
    const f = k * step;
    sx += f;
    sy += x[k];
    sxx += f * f;
    sxy += f * x[k];
  }
  const den = n * sxx - sx * sx;
  return den > 0 ? (n * sxy - sx * sy) / den : 0;
}

/**
 * Strong peak (Gillet & Richard, as Essentia's StrongPeak): the largest magnitude divided by
 * log10(upper/lower bin) of the region around it that stays above half of that magnitude — high for a
 * narrow, dominant peak.
 */
export function strongPeak(x: ArrayLike<number>): number {
  let maxIndex = 0;
  for (let i = 1; i < x.length; i++) if (x[i] > x[maxIndex]) maxIndex = i;
  const peak = x[maxIndex];
  if (peak <= EPS) return 0;
  const half = peak / 2;
  let lo = maxIndex;
  while (lo > 0 && x[lo - 1] > half) lo--;
  let hi = maxIndex;
  while (hi < x.length - 1 && x[hi + 1] > half) hi++;
  return peak / Math.log10((hi + 1) / Math.max(lo, 0.5));
}
