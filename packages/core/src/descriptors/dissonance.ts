/**
 * Sensory dissonance as the reference extractor computes it (Essentia's Dissonance, after Plomp & Levelt
 * 1965): each spectral peak above 50 Hz is paired with the peaks within ±1.18 Bark of it (below 10 kHz);
 * a pair's roughness is 1 − consonance, the consonance read from a polynomial fit of Plomp & Levelt's curve
 * against the frequency gap in critical bandwidths. Peaks are weighted by their A-weighted level as a share
 * of the total, a peak's summed roughness is capped at its own share, and pairs are counted once (÷2).
 */
import type { Peaks } from './peaks.ts';

/** Traunmüller's Bark scale with the low/high corrections the reference uses. */
export function hzToBark(f: number): number {
  let b = (26.81 * f) / (1960 + f) - 0.53;
  if (b < 2) b += 0.15 * (2 - b);
  if (b > 20.1) b += 0.22 * (b - 20.1);
  return b;
}

/**
 * The inverse of hzToBark. (The reference subtracts 4.422 above 20.1 Bark, which does not invert its own
 * correction; it only matters above ≈ 6.5 kHz, beyond the 5 kHz of the peaks dissonance reads.)
 */
export function barkToHz(z: number): number {
  let b = z;
  if (b < 2) b = (b - 0.3) / 0.85;
  if (b > 20.1) b = (b + 4.422) / 1.22;
  return (1960 * (b + 0.53)) / (26.28 - b);
}

/** Critical bandwidth (Hz) at a critical-band rate z (Bark). */
export function criticalBandwidth(z: number): number {
  return 52548 / (z * z - 52.56 * z + 690.39);
}

/** The A-weighting gain (linear, +2 dB offset so 1 kHz is ≈ 1.26) at frequency f. */
export function aWeighting(f: number): number {
  const f2 = f * f;
  return (
    (1.25893 * 12200 * 12200 * f2 * f2) /
    ((f2 + 20.6 * 20.6) *
      (f2 + 12200 * 12200) *
      Math.sqrt(f2 + 107.7 * 107.7) *
      Math.sqrt(f2 + 737.9 * 737.9))
  );
}

/** Plomp & Levelt's consonance (1 = consonant) for a gap of `df` critical bandwidths, a quintic fit. */
export function plompLeveltConsonance(df: number): number {
  if (df < 0 || df > 1.18) return 1;
  const c =
    ((((-6.58977878 * df + 28.58224226) * df - 47.36739986) * df + 35.70679761) * df - 10.36526344) * df +
    1.00026609;
  return Math.min(1, Math.max(0, c));
}

const weights = new Float64Array(1024);
/**
 * Each peak's critical bandwidth, computed once per peak rather than once per pair (the pairs are
 * O(n²): this took most of the function's time); the same values, so the same result.
 */
const bandwidths = new Float64Array(1024);

/** 0 (consonant) … ≈0.5 (dense inharmonic peaks); `peaks` sorted by frequency. */
export function dissonance(peaks: Peaks): number {
  const n = peaks.count;
  const { frequencies: f, magnitudes: a } = peaks;
  const w = n <= weights.length ? weights : new Float64Array(n);
  const cb = n <= bandwidths.length ? bandwidths : new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    // The reference squares the weighting gain: it treats the peak magnitudes as intensities.
    const g = aWeighting(f[i]);
    w[i] = a[i] * g * g;
    total += w[i];
    cb[i] = criticalBandwidth(hzToBark(f[i]));
  }
  if (!(total > 0)) return 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if (f[i] <= 50) continue;
    const bark = hzToBark(f[i]);
    const start = barkToHz(bark - 1.18);
    const end = barkToHz(bark + 1.18);
    let j = 0;
    while (j < n && f[j] < start && f[j] < 50) j++;
    let own = 0;
    for (; j < n && f[j] < end && f[j] < 10000; j++) {
      // A pair's gap in critical bandwidths: the narrower of the two peaks' bands.
      const d = 1 - plompLeveltConsonance(Math.abs(f[j] - f[i]) / Math.min(cb[i], cb[j]));
      if (d > 0) own += (d * (w[j] + w[i])) / total;
    }
    sum += Math.min(own, w[i] / total);
  }
  return sum / 2;
}
