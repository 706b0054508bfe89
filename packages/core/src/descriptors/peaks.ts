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
 * interpolation; keeps the `capacity` largest, returned sorted by frequency.
 */
export function findPeaks(
  magnitudes: Float32Array,
  binHz: number,
  threshold: number,
  minHz: number,
  maxHz: number,
  out: Peaks,
): void {
  const capacity = out.frequencies.length;
  let count = 0;
  const from = Math.max(1, Math.floor(minHz / binHz));
  const to = Math.min(magnitudes.length - 2, Math.ceil(maxHz / binHz));
  for (let k = from; k <= to; k++) {
    const m = magnitudes[k];
    if (m <= threshold || m < magnitudes[k - 1] || m <= magnitudes[k + 1]) continue;
    const a = magnitudes[k - 1];
    const c = magnitudes[k + 1];
    const denom = a - 2 * m + c;
    const delta = denom !== 0 ? (0.5 * (a - c)) / denom : 0;
    const freq = (k + delta) * binHz;
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

export interface HarmonicFeatures {
  oddToEven: number;
  tristimulus: [number, number, number];
}

const SILENT_HARMONICS: HarmonicFeatures = { oddToEven: 0, tristimulus: [0, 0, 0] };

/**
 * Inharmonicity as the reference computes it: Essentia's HarmonicPeaks (tolerance 0.2 of a harmonic
 * number, 20 harmonics) then Inharmonicity. Each peak within 0.2 of a harmonic number h of `pitch` (and
 * below 20.2·pitch) competes for h, the nearest one wins (the louder on a tie); a harmonic without a peak
 * is the ideal h·pitch with magnitude 0. Inharmonicity then takes the first harmonic's frequency as f0 and
 * gives Σ_{h≥2} |f_h − round(f_h/f0)·f0|·a_h² / (f0 · Σ_h a_h²) — 1 when no harmonic has a peak (the
 * reference's value for an empty sum), 0 without a pitch or peaks.
 */
export function referenceInharmonicity(peaks: Peaks, pitch: number, maxHarmonics = 20): number {
  if (!(pitch > 0) || peaks.count === 0) return 0;
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
  const f0 = chosen[0] >= 0 ? f[chosen[0]] : pitch;
  let den = chosen[0] >= 0 ? a[chosen[0]] * a[chosen[0]] : 0;
  let num = 0;
  for (let h = 2; h <= maxHarmonics; h++) {
    const i = chosen[h - 1];
    if (i < 0) continue; // an ideal harmonic with magnitude 0 adds nothing
    const e = a[i] * a[i];
    num += Math.abs(f[i] - Math.round(f[i] / f0) * f0) * e;
    den += e;
  }
  return den > 0 ? num / (den * f0) : 1;
}

/** Scratch for referenceInharmonicity: the chosen peak per harmonic (−1 for none). */
const harmonicChoice = new Int32Array(64);

/**
 * Picks, for harmonics h = 1…maxHarmonics of f0, the strongest peak within ±quarter-tone, then the
 * odd-to-even energy ratio (capped at 1000) and the
 * tristimulus (Pollard & Jansson) T1 = a1/Σa, T2 = (a2+a3+a4)/Σa, T3 = (a5…)/Σa.
 */
export function harmonicFeatures(peaks: Peaks, f0: number, maxHarmonics = 20): HarmonicFeatures {
  if (!(f0 > 0) || peaks.count === 0) return SILENT_HARMONICS;
  const amps = new Float64Array(maxHarmonics + 1);
  const { frequencies: f, magnitudes: a } = peaks;
  for (let i = 0; i < peaks.count; i++) {
    const h = Math.round(f[i] / f0);
    if (h < 1 || h > maxHarmonics) continue;
    const ideal = h * f0;
    if (Math.abs(f[i] - ideal) > ideal * 0.0293) continue;
    if (a[i] > amps[h]) {
      amps[h] = a[i];
    }
  }
  let energy = 0;
  let odd = 0;
  let even = 0;
  let total = 0;
  for (let h = 1; h <= maxHarmonics; h++) {
    const e = amps[h] * amps[h];
    if (e === 0) continue;
    energy += e;
    if (h % 2) odd += e;
    else even += e;
    total += amps[h];
  }
  if (energy === 0) return SILENT_HARMONICS;
  const t2 = amps[2] + amps[3] + amps[4];
  return {
    oddToEven:
      even > 0 ? Math.min(1000, (odd - amps[1] * amps[1]) / even) : odd > amps[1] * amps[1] ? 1000 : 0,
    tristimulus: [amps[1] / total, t2 / total, (total - amps[1] - t2) / total],
  };
}
