/**
 * `lowlevel.average_loudness` as the reference extractor computes it (its computeAverageLoudness): each
 * low-level frame's Stevens loudness (Σx²)^0.67, divided by the loudest frame's (at least 1e-4), floored
 * at 1e-4 (−80 dB); the mean in dB, squeezed into 0…1 by 0.5 + 0.5·tanh(−1 + 2(dB + 5)/3): near 1 for a
 * sound that stays close to its peak level, near 0 for one mostly far below it.
 */
export function averageLoudness(frameEnergy: ArrayLike<number>): number {
  const n = frameEnergy.length;
  if (n === 0) return 0;
  let max = 0;
  for (let i = 0; i < n; i++) max = Math.max(max, frameEnergy[i] ** 0.67);
  max = Math.max(max, 1e-4);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.max(frameEnergy[i] ** 0.67 / max, 1e-4);
  const db = 10 * Math.log10(sum / n);
  return 0.5 + 0.5 * Math.tanh(-1 + (2 * (db + 5)) / 3);
}
