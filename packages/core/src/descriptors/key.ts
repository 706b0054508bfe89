/**
 * Key from the mean HPCP: Pearson correlation of the 12-semitone chroma with Temperley's major and minor
 * key profiles at all 12 rotations; the best wins and its correlation is the strength. It reads the tonal
 * frames already computed, so it costs microseconds instead of essentia's second whole-signal pass.
 */

// Scale-degree weights from the tonic (Temperley's Kostka–Payne corpus profiles, 2007).
const MAJOR = [0.748, 0.06, 0.488, 0.082, 0.67, 0.46, 0.096, 0.715, 0.104, 0.366, 0.057, 0.4];
const MINOR = [0.712, 0.084, 0.474, 0.618, 0.049, 0.46, 0.105, 0.747, 0.404, 0.067, 0.133, 0.33];
/** Pitch classes from A, matching HPCP bin 0 = A. */
const NAMES_FROM_A = ['A', 'A#', 'B', 'C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#'];

function correlation(a: ArrayLike<number>, b: ArrayLike<number>, shift: number): number {
  const n = 12;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= n;
  mb /= n;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    const x = a[(i + shift) % n] - ma;
    const y = b[i] - mb;
    num += x * y;
    da += x * x;
    db += y * y;
  }
  return da > 0 && db > 0 ? num / Math.sqrt(da * db) : 0;
}

/** 36-bin HPCP (bin 0 = A) folded to 12 semitones, each semitone taking its centre bin and half of its neighbours. */
export function foldHpcp(hpcp: ArrayLike<number>): Float64Array {
  const size = hpcp.length;
  const per = size / 12;
  const out = new Float64Array(12);
  for (let s = 0; s < 12; s++) {
    const c = s * per;
    out[s] = hpcp[c] + 0.5 * (hpcp[(c + size - 1) % size] + hpcp[(c + 1) % size]);
  }
  return out;
}

export interface KeyEstimate {
  key: string;
  scale: 'major' | 'minor';
  strength: number;
}

export function estimateKey(meanHpcp: ArrayLike<number>): KeyEstimate {
  if (meanHpcp.length < 12) return { key: 'C', scale: 'major', strength: 0 };
  const chroma = foldHpcp(meanHpcp);
  let best: KeyEstimate = { key: 'C', scale: 'major', strength: 0 };
  for (let tonic = 0; tonic < 12; tonic++) {
    for (const [scale, profile] of [
      ['major', MAJOR],
      ['minor', MINOR],
    ] as const) {
      const r = correlation(chroma, profile, tonic);
      if (r > best.strength) best = { key: NAMES_FROM_A[tonic], scale, strength: r };
    }
  }
  return best;
}
