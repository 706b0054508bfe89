import { NOTE_NAMES } from '@earshot/common/notes';

/** Pitch classes from A, matching HPCP bin 0 = A (440 Hz reference); chord and key labels use them. */
export const PITCH_CLASSES_FROM_A: readonly string[] = [...NOTE_NAMES.slice(9), ...NOTE_NAMES.slice(0, 9)];

/**
 * An HPCP (bin 0 = A, 3 bins a semitone as ours) folded to 12 semitones, each semitone taking its centre
 * bin and half of its neighbours.
 */
export function foldHpcp(hpcp: ArrayLike<number>, out = new Float64Array(12)): Float64Array {
  const size = hpcp.length;
  const per = size / 12;
  for (let s = 0; s < 12; s++) {
    const c = s * per;
    out[s] = hpcp[c] + 0.5 * (hpcp[(c + size - 1) % size] + hpcp[(c + 1) % size]);
  }
  return out;
}

/** Pearson correlation of two equally long vectors; 0 when either is constant. */
export function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
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
    num += (a[i] - ma) * (b[i] - mb);
    da += (a[i] - ma) ** 2;
    db += (b[i] - mb) ** 2;
  }
  return da > 0 && db > 0 ? num / Math.sqrt(da * db) : 0;
}
