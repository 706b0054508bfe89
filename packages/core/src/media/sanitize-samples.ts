/**
 * How far over full scale a decoded sample may go before it is taken for corruption: float formats
 * carry legitimate overs (a mastered MP3 decodes a little past ±1), never 18 dB of them.
 */
export const MAX_SAMPLE_MAGNITUDE = 8;

/**
 * Makes decoded audio safe to measure, in place: a non-finite sample (NaN, ±Infinity: a float WAV's
 * corrupt word) becomes silence and a magnitude past MAX_SAMPLE_MAGNITUDE is clipped to it, so one
 * bad sample cannot turn every descriptor of the sound into NaN or 1e35. Returns how many samples
 * it changed. Samples within range are left exactly as decoded (the descriptors' parity depends on it).
 */
export function sanitizeSamples(samples: Float32Array): number {
  let changed = 0;
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i];
    // One comparison for the common case; NaN fails it too.
    if (x <= MAX_SAMPLE_MAGNITUDE && x >= -MAX_SAMPLE_MAGNITUDE) continue;
    samples[i] = Number.isNaN(x) ? 0 : x > 0 ? MAX_SAMPLE_MAGNITUDE : -MAX_SAMPLE_MAGNITUDE;
    changed++;
  }
  return changed;
}
