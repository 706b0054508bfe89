/**
 * `lowlevel.dynamic_complexity` as the reference extractor computes it (Essentia's DynamicComplexity,
 * Streich 2007, 0.2 s frames): the mean absolute deviation, in dB, of a smoothed frame level from the
 * sound's loudness estimate.
 */

/** The floor of the level (dB); frames at it are the silence trimmed from both ends. */
const SILENT_DB = -90;

/**
 * The mono signal through the reference's cheap B-curve (a first-order high-pass, y = 0.98595·(x − x₋₁)
 * + 0.9719·y₋₁), squared; per 0.2 s frame (whole frames only) a level that leaks with a 35 ms time
 * constant: V = c^N·V + (1 − c)·Σ c^(N−1−i)·e_i, in dB floored at −90; the −90 frames at the start and
 * end are dropped; loudness = the mean level weighted by 0.9^(−dB) (the loud frames weigh most);
 * complexity = the mean |level − loudness|. 0 for silence or a sound shorter than one frame.
 */
export function dynamicComplexity(signal: Float32Array, sampleRate: number): number {
  const frameSize = Math.floor(0.2 * sampleRate);
  const frames = frameSize > 0 ? Math.floor(signal.length / frameSize) : 0;
  if (frames === 0) return 0;
  const c = Math.exp(-1 / (0.035 * sampleRate));
  const decay = c ** frameSize;
  const levels: number[] = [];
  let previousIn = 0;
  let previousOut = 0;
  let v = 0;
  for (let f = 0; f < frames; f++) {
    // Σ c^(N−1−i)·e_i over the frame, accumulated forwards (Horner).
    let weighted = 0;
    for (let i = f * frameSize; i < (f + 1) * frameSize; i++) {
      const x = signal[i];
      const y = i === 0 ? 0.98595 * x : 0.98595 * (x - previousIn) + 0.9719 * previousOut;
      previousIn = x;
      previousOut = y;
      weighted = weighted * c + y * y;
    }
    v = decay * v + (1 - c) * weighted;
    levels.push(Math.max(SILENT_DB, 10 * Math.log10(Math.max(v, 1e-9))));
  }
  let first = 0;
  while (first < levels.length && levels[first] === SILENT_DB) first++;
  let last = levels.length - 1;
  while (last >= first && levels[last] === SILENT_DB) last--;
  if (last < first) return 0;
  const kept = levels.slice(first, last + 1);
  let weightSum = 0;
  let loudness = 0;
  for (const db of kept) {
    const u = 0.9 ** -db;
    weightSum += u;
    loudness += u * db;
  }
  loudness /= weightSum;
  let complexity = 0;
  for (const db of kept) complexity += Math.abs(db - loudness);
  return complexity / kept.length;
}
