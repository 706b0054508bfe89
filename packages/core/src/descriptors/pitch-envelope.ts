/**
 * The pitch-envelope `sfx.*` descriptors, as the reference extractor computes them on its whole low-level
 * pitch track (pitch-yin.ts: every frame's raw estimate, unvoiced and noisy frames included; frame index
 * as time):
 * - pitch_centroid: Σ i·p_i / Σ p_i / (n − 1) (Centroid over the frame index, range 1);
 * - pitch_max_to_total / pitch_min_to_total: index of the first maximum / minimum over n (MaxToTotal,
 *   MinToTotal);
 * - pitch_after_max_to_before_max_energy_ratio: with the frames of pitch ≤ 0 removed, Σ p² from the first
 *   maximum to the end over Σ p² from the start to it, the maximum counted in both
 *   (AfterMaxToBeforeMaxEnergyRatio).
 * Where the reference throws (fewer than two frames, no positive pitch) the value is 0.
 */
export interface PitchEnvelope {
  centroid: number;
  maxToTotal: number;
  minToTotal: number;
  afterMaxToBeforeMaxEnergyRatio: number;
}

export function pitchEnvelope(track: ArrayLike<number>): PitchEnvelope {
  const n = track.length;
  if (n === 0) return { centroid: 0, maxToTotal: 0, minToTotal: 0, afterMaxToBeforeMaxEnergyRatio: 0 };
  let sum = 0;
  let weighted = 0;
  let maxI = 0;
  let minI = 0;
  for (let i = 0; i < n; i++) {
    sum += track[i];
    weighted += i * track[i];
    if (track[i] > track[maxI]) maxI = i;
    if (track[i] < track[minI]) minI = i;
  }
  // The positive frames only: the first maximum among them splits the energy.
  let positiveMax = -1;
  for (let i = 0; i < n; i++)
    if (track[i] > 0 && (positiveMax < 0 || track[i] > track[positiveMax])) positiveMax = i;
  let before = 0;
  let after = 0;
  if (positiveMax >= 0) {
    for (let i = 0; i < n; i++) {
      if (!(track[i] > 0)) continue;
      const e = track[i] * track[i];
      if (i <= positiveMax) before += e;
      if (i >= positiveMax) after += e;
    }
  }
  return {
    centroid: n > 1 && sum !== 0 ? weighted / sum / (n - 1) : 0,
    // The reference's running maximum starts at the smallest positive float: an all-zero track gives 0.
    maxToTotal: track[maxI] > 0 ? maxI / n : 0,
    minToTotal: minI / n,
    afterMaxToBeforeMaxEnergyRatio: before > 0 ? after / before : 0,
  };
}
