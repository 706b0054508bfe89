/**
 * rhythm.bpm_loop_confidence as the reference extractor computes it: Essentia's LoopBpmConfidence (Font &
 * Serra 2016) for the loop tempo rounded to a whole BPM, as LoopBpmEstimator passes it.
 */

/** The envelope's attack and release (s) and the share of its maximum that counts as sound. */
const ENVELOPE_TIME = 0.01;
const SOUND_SHARE = 0.05;
/** Whole numbers of beats tried: 1 … 127. */
const MAX_BEATS = 127;

/**
 * How well a whole number of beats of `bpm` fits the sound's length: with the sound's start and end
 * where its envelope (Essentia's Envelope, 10 ms attack and release, from zero) first and last reaches
 * 5% of its maximum, for each of four lengths — all of it, from the start, up to the end, from the start
 * to the end (in samples) — the distance d to the nearest round(n·beat) for n = 1 … 127; confidence
 * = 1 − d / half a beat (0 past half a beat), the best of the four. 0 for a tempo of 0 or no signal.
 */
export function loopBpmConfidence(signal: Float32Array, bpm: number, sampleRate: number): number {
  const length = signal.length;
  if (bpm === 0 || length === 0) return 0;
  // Essentia's Envelope (sfx-envelope.ts's referenceEnvelope, float32 state): with attack and release
  // equal, its two branches are one and the same first-order low-pass of |x|. It is run twice rather than
  // kept (a float per sample): once for its peak, once for where it first and last reaches 5% of it.
  const g = Math.fround(Math.exp(-1 / (sampleRate * ENVELOPE_TIME)));
  let y = 0;
  let peak = 0;
  for (let i = 0; i < length; i++) {
    y = Math.fround((1 - g) * Math.abs(signal[i]) + g * y);
    if (y > peak) peak = y;
  }
  const threshold = Math.fround(peak * SOUND_SHARE);
  let start = -1;
  let end = -1;
  y = 0;
  for (let i = 0; i < length; i++) {
    y = Math.fround((1 - g) * Math.abs(signal[i]) + g * y);
    if (y >= threshold) {
      if (start < 0) start = i;
      end = i;
    }
  }
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  const beat = Math.fround((60 * sampleRate) / bpm);
  const halfBeat = Math.fround(beat * 0.5);
  let best = 0;
  for (const duration of [length, length - start, end, end - start]) {
    let nearest = length;
    for (let n = 1; n <= MAX_BEATS; n++) {
      const distance = Math.abs(duration - Math.round(Math.fround(beat * n)));
      if (distance < nearest) nearest = distance;
    }
    const confidence = nearest > halfBeat ? 0 : Math.fround(1 - nearest / halfBeat);
    if (confidence > best) best = confidence;
  }
  return best;
}
