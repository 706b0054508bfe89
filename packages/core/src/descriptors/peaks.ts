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
  inharmonicity: number;
  oddToEven: number;
  tristimulus: [number, number, number];
}

const SILENT_HARMONICS: HarmonicFeatures = { inharmonicity: 0, oddToEven: 0, tristimulus: [0, 0, 0] };

/**
 * Picks, for harmonics h = 1…maxHarmonics of f0, the strongest peak within ±quarter-tone, then:
 * inharmonicity = Σ|f_h − h·f0|·a_h² / (f0 · Σa_h²) (0…1); odd-to-even energy ratio (capped at 1000);
 * tristimulus (Pollard & Jansson) T1 = a1/Σa, T2 = (a2+a3+a4)/Σa, T3 = (a5…)/Σa.
 */
/**
 * Inharmonicity as the reference computes it (Essentia's HarmonicPeaks, tolerance 0.2 of a harmonic number,
 * then Inharmonicity): per harmonic h the peak nearest h·f0 with |f/f0 − h| ≤ 0.2, then
 * Σ_h |f_h − h·f0|·a_h² / (f0 · Σ_h a_h²), in [0, 1).
 */
export function referenceInharmonicity(peaks: Peaks, f0: number, maxHarmonics = 20): number {
  if (!(f0 > 0)) return 0;
  let num = 0;
  let den = 0;
  const { frequencies: f, magnitudes: a } = peaks;
  for (let h = 1; h <= maxHarmonics; h++) {
    let best = -1;
    let bestGap = 0.2;
    for (let i = 0; i < peaks.count; i++) {
      const gap = Math.abs(f[i] / f0 - h);
      if (gap <= bestGap) {
        bestGap = gap;
        best = i;
      }
    }
    if (best < 0) continue;
    const e = a[best] * a[best];
    num += Math.abs(f[best] - h * f0) * e;
    den += e;
  }
  return den > 0 ? num / (den * f0) : 0;
}

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
    inharmonicity: referenceInharmonicity(peaks, f0, maxHarmonics),
    oddToEven:
      even > 0 ? Math.min(1000, (odd - amps[1] * amps[1]) / even) : odd > amps[1] * amps[1] ? 1000 : 0,
    tristimulus: [amps[1] / total, t2 / total, (total - amps[1] - t2) / total],
  };
}
