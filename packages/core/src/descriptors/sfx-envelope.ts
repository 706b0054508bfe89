/**
 * The reference extractor's temporal sfx descriptors (Essentia FreesoundExtractor: Envelope → Centroid,
 * TCToTotal, CentralMoments + DistributionShape, Decrease, EffectiveDuration, LogAttackTime, MaxToTotal,
 * StrongDecay, FlatnessSFX, DerivativeSFX), computed on the same envelope the reference computes, so values
 * agree and not only ranks.
 *
 * The envelope is Essentia's Envelope with the extractor's settings (10 ms attack, 1.5 s release, rectified,
 * one value per sample). In the extractor it runs in streaming mode on 4096-sample blocks and the follower
 * starts again from zero at each block: on the 40 reference recordings the reference values are reproduced
 * to four digits only with that restart (with a continuous follower the 1.5 s release holds a kick drum's
 * envelope above 10% to the end of the file, and the reference's 0.18 s effective duration of bd_808
 * becomes 0.56 s). Moments are over time normalized to [0, 1] (range 1, the extractor's default).
 */

import { selectKth } from './select-kth.ts';

/** Block length of the reference's streaming Envelope; the follower restarts at each block. */
export const REFERENCE_ENVELOPE_BLOCK = 4096;
/** EffectiveDuration's threshold in the extractor (it passes 0.1, not the algorithm's default 0.4). */
export const EFFECTIVE_DURATION_RATIO = 0.1;
/** EffectiveDuration never counts samples below −90 dB (Essentia's silence). */
const NOISE_FLOOR = 10 ** (-90 / 20);

export interface TemporalShape {
  /** Envelope centroid over time normalized to [0, 1] (sfx.temporal_centroid = sfx.tc_to_total). */
  centroid: number;
  /** Second central moment over normalized time. */
  spread: number;
  skewness: number;
  /** Excess kurtosis (m4/m2² − 3), −3 for a flat zero-variance distribution as the reference gives. */
  kurtosis: number;
  /** Least-squares slope of the envelope over normalized time (envelope units per duration). */
  decrease: number;
  /** Seconds the envelope is ≥ 10% of its maximum (and above −90 dB). */
  effectiveDuration: number;
  /** log10 of the seconds from the envelope's first reaching 20% of its maximum to its first reaching 90%; −5 under 0.1 ms. */
  logAttackTime: number;
  /** Index of the envelope's maximum over its length. */
  maxToTotal: number;
  /** √(Σ env² / centroid in seconds) (Essentia's StrongDecay on the envelope). */
  strongDecay: number;
  /** 95th over 20th percentile of the envelope values (FlatnessSFX; 1 when the 20th is 0). */
  flatness: number;
  /** (env[last] − env[max − 1]) / Σ env from the maximum on: DerivativeSFX's "average" after the maximum. */
  derAvAfterMax: number;
  /** Largest one-sample rise up to the maximum (the first sample counts as a rise from 0). */
  maxDerBeforeMax: number;
}

/**
 * Essentia's Envelope as the extractor runs it: an attack/release one-pole follower of |x| at full rate,
 * restarted at each 4096-sample block; float32 state, as the reference keeps it.
 */
export function referenceEnvelope(
  signal: Float32Array,
  sampleRate: number,
  attackS = 0.01,
  releaseS = 1.5,
  block = REFERENCE_ENVELOPE_BLOCK,
): Float32Array {
  const env = new Float32Array(signal.length);
  const ga = Math.fround(Math.exp(-1 / (sampleRate * attackS)));
  const gr = Math.fround(Math.exp(-1 / (sampleRate * releaseS)));
  for (let start = 0; start < signal.length; start += block) {
    const end = Math.min(signal.length, start + block);
    let y = 0;
    for (let i = start; i < end; i++) {
      const x = Math.abs(signal[i]);
      y = Math.fround(y < x ? (1 - ga) * x + ga * y : (1 - gr) * x + gr * y);
      env[i] = y;
    }
  }
  return env;
}

/** What the shape of a silent or one-sample envelope reads (the reference throws there). */
const SILENT_SHAPE: TemporalShape = {
  centroid: 0,
  spread: 0,
  skewness: 0,
  kurtosis: -3,
  decrease: 0,
  effectiveDuration: 0,
  logAttackTime: -5,
  maxToTotal: 0,
  strongDecay: 0,
  flatness: 1,
  derAvAfterMax: 0,
  maxDerBeforeMax: 0,
};

/** The reference's temporal sfx values of an envelope (one value per sample). */
export function temporalShape(env: Float32Array, sampleRate: number): TemporalShape {
  const n = env.length;
  if (n < 2) return { ...SILENT_SHAPE };
  const scale = 1 / (n - 1);
  let norm = 0;
  let weighted = 0;
  let energy = 0;
  let peak = 0;
  let peakIndex = 0;
  for (let i = 0; i < n; i++) {
    const e = env[i];
    norm += e;
    weighted += i * scale * e;
    energy += e * e;
    if (e > peak) {
      peak = e;
      peakIndex = i;
    }
  }
  const centroid = norm > 0 ? weighted / norm : 0;
  // Centroid in seconds, as StrongDecay reads it.
  const centroidSeconds = (centroid * (n - 1)) / sampleRate;

  let start = 0;
  while (start < n && env[start] < 0.2 * peak) start++;
  let stop = start;
  while (stop < n && env[stop] < 0.9 * peak) stop++;
  const attack = (stop - start) / sampleRate;

  // DerivativeSFX: its "weighted average" after the maximum sums the one-sample differences (a telescoping
  // sum: last value − the value before the maximum) over the sum of the values.
  let after = 0;
  for (let i = peakIndex; i < n; i++) after += env[i];
  const derAvAfterMax = after > 0 ? (env[n - 1] - (peakIndex > 0 ? env[peakIndex - 1] : 0)) / after : 0;
  let maxDerBeforeMax = env[0];
  for (let i = 1; i <= peakIndex; i++) maxDerBeforeMax = Math.max(maxDerBeforeMax, env[i] - env[i - 1]);

  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  // Decrease: least-squares slope against t in [0, 1] (mean t = 0.5), Essentia's Decrease with range 1.
  const meanE = norm / n;
  let sxx = 0;
  let sxy = 0;
  const threshold = Math.max(EFFECTIVE_DURATION_RATIO * peak, NOISE_FLOOR);
  let above = 0;
  for (let i = 0; i < n; i++) {
    const e = env[i];
    const t = i * scale;
    const v = t - centroid;
    const v2e = v * v * e;
    m2 += v2e;
    m3 += v2e * v;
    m4 += v2e * v * v;
    const dt = t - 0.5;
    sxx += dt * dt;
    sxy += dt * (e - meanE);
    if (e >= threshold) above++;
  }
  if (norm > 0) {
    m2 /= norm;
    m3 /= norm;
    m4 /= norm;
  }
  return {
    centroid,
    spread: m2,
    skewness: m2 > 0 ? m3 / m2 ** 1.5 : 0,
    kurtosis: m2 > 0 ? m4 / (m2 * m2) - 3 : -3,
    decrease: sxy / sxx,
    effectiveDuration: above / sampleRate,
    logAttackTime: attack > 1e-4 ? Math.log10(attack) : -5,
    maxToTotal: peakIndex / n,
    strongDecay: centroidSeconds > 0 ? Math.sqrt(energy / centroidSeconds) : 0,
    flatness: flatnessSFX(env),
    derAvAfterMax,
    maxDerBeforeMax,
  };
}

/**
 * FlatnessSFX: the envelope's 95th percentile over its 20th, each read off the sorted values with linear
 * interpolation at (n − 1)·p. Two selections on a copy instead of a sort (the envelope has one value per
 * sample).
 */
export function flatnessSFX(env: Float32Array): number {
  const n = env.length;
  if (n === 0) return 1;
  const values = Float32Array.from(env);
  const upper = percentile(values, 0, n - 1, 0.95);
  // After the first selection everything left of its index is ≤ it: the second searches only there.
  const lower = percentile(values, 0, Math.min(n - 1, Math.floor((n - 1) * 0.95)), 0.2, n);
  return lower === 0 ? 1 : upper / lower;
}

/** The p-quantile of values[0…n) (interpolated), selecting within [lo, hi], which must hold its rank. */
function percentile(values: Float32Array, lo: number, hi: number, p: number, n = hi + 1): number {
  const index = (n - 1) * p;
  const k = Math.floor(index);
  selectKth(values, k, lo, hi);
  if (index === k || k + 1 >= n) return values[k];
  // The next order statistic is the smallest value right of k.
  let next = Number.POSITIVE_INFINITY;
  for (let i = k + 1; i < n; i++) if (values[i] < next) next = values[i];
  return values[k] + (next - values[k]) * (index - k);
}
