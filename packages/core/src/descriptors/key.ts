/**
 * Key from the mean HPCP: Pearson correlation of the 12-semitone chroma with Temperley's major and minor
 * key profiles at all 12 rotations; the best wins and its correlation is the strength. It reads the tonal
 * frames already computed, so it costs microseconds instead of essentia's second whole-signal pass.
 */

import { foldHpcp, PITCH_CLASSES_FROM_A, pearson } from './chroma.ts';

// Scale-degree weights from the tonic (Temperley's Kostka–Payne corpus profiles, 2007).
const MAJOR = [0.748, 0.06, 0.488, 0.082, 0.67, 0.46, 0.096, 0.715, 0.104, 0.366, 0.057, 0.4];
const MINOR = [0.712, 0.084, 0.474, 0.618, 0.049, 0.46, 0.105, 0.747, 0.404, 0.067, 0.133, 0.33];

export interface KeyEstimate {
  key: string;
  scale: 'major' | 'minor';
  strength: number;
}

export function estimateKey(meanHpcp: ArrayLike<number>): KeyEstimate {
  if (meanHpcp.length < 12) return { key: 'C', scale: 'major', strength: 0 };
  const chroma = foldHpcp(meanHpcp);
  let best: KeyEstimate = { key: 'C', scale: 'major', strength: 0 };
  const rotated = new Float64Array(12);
  for (let tonic = 0; tonic < 12; tonic++) {
    for (let i = 0; i < 12; i++) rotated[i] = chroma[(i + tonic) % 12];
    for (const [scale, profile] of [
      ['major', MAJOR],
      ['minor', MINOR],
    ] as const) {
      const r = pearson(rotated, profile);
      if (r > best.strength) best = { key: PITCH_CLASSES_FROM_A[tonic], scale, strength: r };
    }
  }
  return best;
}
