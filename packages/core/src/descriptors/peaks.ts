/** Spectral peak picking and the features computed from peaks (harmonic peaks, tristimulus…; dissonance in dissonance.ts). */

export interface Peaks {
  count: number;
  frequencies: Float64Array;
  magnitudes: Float64Array;
}

export function createPeaks(capacity: number): Peaks {
  return { count: 0, frequencies: new Float64Array(capacity), magnitudes: new Float64Array(capacity) };
}

/**
 * Local maxima of the magnitude spectrum above `threshold` within [minHz, maxHz], refined by parabolic
 * interpolation; keeps the `capacity` largest, returned sorted by frequency. With `referenceEdges`, the
 * edges are Essentia PeakDetection's: the first bin at or above minHz counts as a peak (uninterpolated)
 * when the spectrum falls from it (a spectrum falling from below minHz, a kick drum's, gives a peak
 * there), and the search ends at the first peak interpolated above maxHz (so it never takes the place of
 * a smaller one below when `capacity` is reached).
 */
export function findPeaks(
  magnitudes: Float32Array,
  binHz: number,
  threshold: number,
  minHz: number,
  maxHz: number,
  out: Peaks,
  referenceEdges = false,
): void {
  const capacity = out.frequencies.length;
  let count = 0;
  let from = Math.max(1, Math.floor(minHz / binHz));
  const to = Math.min(magnitudes.length - 2, Math.ceil(maxHz / binHz));
  if (referenceEdges) {
    const edge = Math.ceil(minHz / binHz);
    if (
      edge + 1 < magnitudes.length &&
      magnitudes[edge] > magnitudes[edge + 1] &&
      magnitudes[edge] > threshold
    ) {
      out.frequencies[0] = edge * binHz;
      out.magnitudes[0] = magnitudes[edge];
      count = 1;
    }
    from = edge + 1;
  }
  for (let k = from; k <= to; k++) {
    const m = magnitudes[k];
    if (m <= threshold || m < magnitudes[k - 1] || m <= magnitudes[k + 1]) continue;
    const a = magnitudes[k - 1];
    const c = magnitudes[k + 1];
    const denom = a - 2 * m + c;
    const delta = denom !== 0 ? (0.5 * (a - c)) / denom : 0;
    const freq = (k + delta) * binHz;
    if (referenceEdges && freq > maxHz) break;
    const mag = m - 0.25 * (a - c) * delta;
    if (count < capacity) {
      out.frequencies[count] = freq;
      out.magnitudes[count] = mag;
      count++;
    } else {
      // Replace the smallest kept peak when a larger one turns up.
      let smallest = 0;
      for (let i = 1; i < count; i++) if (out.magnitudes[i] < out.magnitudes[smallest]) smallest = i;
      if (mag > out.magnitudes[smallest]) {
        for (let i = smallest; i + 1 < count; i++) {
          out.frequencies[i] = out.frequencies[i + 1];
          out.magnitudes[i] = out.magnitudes[i + 1];
        }
        out.frequencies[count - 1] = freq;
        out.magnitudes[count - 1] = mag;
      }
    }
  }
  out.count = count;
}

/**
 * The reference's harmonic peaks (Essentia's HarmonicPeaks, tolerance 0.2 of a harmonic number, 20
 * harmonics): each peak within 0.2 of a harmonic number h of `pitch` (and below 20.2·pitch) competes for
 * h, the nearest one wins (the louder on a tie); a harmonic without a peak is the ideal h·pitch with
 * magnitude 0. `count` is 0 (no harmonics at all) without a pitch or without peaks, else maxHarmonics.
 */
export function referenceHarmonicPeaks(peaks: Peaks, pitch: number, out: Peaks): void {
  const maxHarmonics = out.frequencies.length;
  out.count = 0;
  if (!(pitch > 0) || peaks.count === 0) return;
  const { frequencies: f, magnitudes: a } = peaks;
  const limit = maxHarmonics + 0.2;
  const chosen = harmonicChoice;
  chosen.fill(-1, 0, maxHarmonics);
  for (let i = 0; i < peaks.count; i++) {
    const ratio = f[i] / pitch;
    const h = Math.round(ratio);
    const gap = Math.abs(ratio - h);
    if (h < 1 || gap > 0.2 || ratio > limit) continue;
    const current = chosen[h - 1];
    if (current < 0) {
      chosen[h - 1] = i;
      continue;
    }
    const currentGap = Math.abs(f[current] / pitch - h);
    if (gap < currentGap || (gap === currentGap && a[i] > a[current])) chosen[h - 1] = i;
  }
  for (let h = 1; h <= maxHarmonics; h++) {
    const i = chosen[h - 1];
    out.frequencies[h - 1] = i < 0 ? h * pitch : f[i];
    out.magnitudes[h - 1] = i < 0 ? 0 : a[i];
  }
  out.count = maxHarmonics;
}

/** Scratch for referenceHarmonicPeaks: the chosen peak per harmonic (−1 for none). */
const harmonicChoice = new Int32Array(64);

/**
 * Inharmonicity as the reference computes it from its harmonic peaks: the first harmonic's frequency is
 * f0, and Σ_{h≥2} |f_h − round(f_h/f0)·f0|·a_h² / (f0 · Σ_h a_h²) — 1 when every harmonic has magnitude 0
 * (the reference's value for an empty sum), 0 without harmonic peaks.
 */
export function harmonicInharmonicity(harmonics: Peaks): number {
  if (harmonics.count === 0) return 0;
  const { frequencies: f, magnitudes: a } = harmonics;
  const f0 = f[0];
  let den = a[0] * a[0];
  let num = 0;
  for (let h = 1; h < harmonics.count; h++) {
    const e = a[h] * a[h];
    if (e === 0) continue;
    num += Math.abs(f[h] - Math.round(f[h] / f0) * f0) * e;
    den += e;
  }
  return den > 0 ? num / (den * f0) : 1;
}

/** Inharmonicity of the reference's harmonic peaks of `pitch` among `peaks`. */
export function referenceInharmonicity(peaks: Peaks, pitch: number, maxHarmonics = 20): number {
  const harmonics = maxHarmonics === 20 ? harmonicScratch : createPeaks(maxHarmonics);
  referenceHarmonicPeaks(peaks, pitch, harmonics);
  return harmonicInharmonicity(harmonics);
}

const harmonicScratch = createPeaks(20);

/**
 * Essentia's Tristimulus on the harmonic peaks (Pollard & Jansson on magnitudes): T1 = a1/Σa,
 * T2 = (a2+a3+a4)/Σa, T3 = (a5…)/Σa; all 0 when Σa is 0 (no pitch, no peaks, or no harmonic found).
 */
export function harmonicTristimulus(harmonics: Peaks, out: Float32Array, at: number): void {
  const a = harmonics.magnitudes;
  const n = harmonics.count;
  let sum = 0;
  for (let h = 0; h < n; h++) sum += a[h];
  if (sum === 0) {
    out[at] = 0;
    out[at + 1] = 0;
    out[at + 2] = 0;
    return;
  }
  const t2 = n >= 4 ? a[1] + a[2] + a[3] : 0;
  out[at] = a[0] / sum;
  out[at + 1] = t2 / sum;
  out[at + 2] = n >= 5 ? (sum - a[0] - a[1] - a[2] - a[3]) / sum : 0;
}

/** The reference's cap on the odd-to-even ratio (its value when the "even" energy is 0). */
export const ODD_TO_EVEN_MAX = 1000;

/**
 * Essentia's OddToEvenHarmonicEnergyRatio on the harmonic peaks. Its "even" and "odd" follow the 0-based
 * position in the list: "even" is harmonics 1, 3, 5… (positions 0, 2, 4…), "odd" harmonics 2, 4, 6…; the
 * ratio is odd/even, capped at 1000 (also its value when only the "even" energy is 0), and 1 when no
 * harmonic has any energy or there are no harmonic peaks at all (an unpitched or silent frame): the
 * reference's values on the calibration recordings (a median of exactly 1 on drum hits) show it.
 */
export function harmonicOddToEven(harmonics: Peaks): number {
  if (harmonics.count === 0) return 1;
  const a = harmonics.magnitudes;
  let even = 0;
  let odd = 0;
  for (let h = 0; h < harmonics.count; h++) {
    if (h % 2 === 0) even += a[h] * a[h];
    else odd += a[h] * a[h];
  }
  if (even === 0) return odd === 0 ? 1 : ODD_TO_EVEN_MAX;
  return Math.min(ODD_TO_EVEN_MAX, odd / even);
}
