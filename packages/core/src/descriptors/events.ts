/** Whole-sound judgements from the amplitude envelope: where the sound starts and ends, single event, reverb. */

import { amplitudeEnvelope } from './envelope.ts';

export interface SoundBounds {
  /** Seconds from the start to the first sample above the silence threshold. */
  startTime: number;
  /** Seconds from the start to the last sample above the silence threshold. */
  stopTime: number;
  leadingSilence: number;
  trailingSilence: number;
}

/**
 * A sample is "sound" when |x| is within 60 dB of the peak (Essentia's StartStopSilence uses −60 dB) and
 * above one 16-bit step, so dither-level noise in a silent stretch does not count.
 */
export function soundBounds(signal: Float32Array, sampleRate: number): SoundBounds {
  let peak = 0;
  for (let i = 0; i < signal.length; i++) {
    const a = Math.abs(signal[i]);
    if (a > peak) peak = a;
  }
  const duration = signal.length / sampleRate;
  if (peak === 0) return { startTime: 0, stopTime: 0, leadingSilence: duration, trailingSilence: 0 };
  const threshold = Math.max(2 ** -15, peak * 0.001);
  let first = 0;
  while (first < signal.length && Math.abs(signal[first]) <= threshold) first++;
  let last = signal.length - 1;
  while (last > first && Math.abs(signal[last]) <= threshold) last--;
  if (first >= signal.length)
    return { startTime: 0, stopTime: 0, leadingSilence: duration, trailingSilence: 0 };
  return {
    startTime: first / sampleRate,
    stopTime: last / sampleRate,
    leadingSilence: first / sampleRate,
    trailingSilence: (signal.length - 1 - last) / sampleRate,
  };
}

/**
 * Counts sound events the way AudioCommons' extractor does in spirit: a fast envelope (15 ms attack,
 * 50 ms release), regions where it stays above 10% (−20 dB) of its maximum, regions closer than 50 ms
 * merged, regions carrying under 5% of the envelope energy dropped. A sound is a single event when
 * exactly one region remains and it is at most 7 s long.
 */
export function countEvents(signal: Float32Array, sampleRate: number): number {
  const { env, rate } = amplitudeEnvelope(signal, sampleRate, 0.015, 0.05);
  let max = 0;
  let total = 0;
  for (const v of env) {
    if (v > max) max = v;
    total += v * v;
  }
  if (max === 0) return 0;
  const regions: { start: number; end: number; energy: number }[] = [];
  const mergeGap = Math.round(0.05 * rate);
  for (let i = 0; i < env.length; i++) {
    if (env[i] < 0.1 * max) continue;
    const last = regions[regions.length - 1];
    if (last && i - last.end <= mergeGap) {
      last.end = i;
      last.energy += env[i] * env[i];
    } else regions.push({ start: i, end: i, energy: env[i] * env[i] });
  }
  return regions.filter((r) => r.energy >= 0.05 * total).length;
}

export function isSingleEvent(signal: Float32Array, sampleRate: number): boolean {
  if (signal.length / sampleRate > 7) return false;
  return countEvents(signal, sampleRate) === 1;
}

/**
 * Blind reverberation time: after each strong envelope peak, the decay rate (dB/s) fitted between −5 and
 * −25 dB below the peak, extrapolated to 60 dB (T20 × 3); the median over peaks. Dry sounds decay in tens
 * of milliseconds, reverberant ones take most of a second or more.
 */
export function estimateRt60(signal: Float32Array, sampleRate: number): number {
  const { env, rate } = amplitudeEnvelope(signal, sampleRate, 0.001, 0.005);
  const db = Float32Array.from(env, (v) => 20 * Math.log10(v + 1e-9));
  let max = Number.NEGATIVE_INFINITY;
  for (const v of db) if (v > max) max = v;
  const estimates: number[] = [];
  let i = 1;
  while (i < db.length - 1) {
    const isPeak = db[i] >= db[i - 1] && db[i] > db[i + 1] && db[i] > max - 20;
    if (!isPeak) {
      i++;
      continue;
    }
    const top = db[i];
    let j = i + 1;
    while (j < db.length && db[j] > top - 5) j++;
    const from = j;
    while (j < db.length && db[j] > top - 25 && db[j] <= top) j++;
    if (j < db.length && j - from >= 3 && db[j] <= top - 25) {
      const seconds = (j - from) / rate;
      estimates.push((seconds * 60) / 20);
    }
    i = Math.max(i + 1, j);
  }
  if (estimates.length === 0) return 0;
  estimates.sort((a, b) => a - b);
  return estimates[estimates.length >> 1];
}

/** AudioCommons' logistic reverb model on the RT60 estimate: p = σ(2.971·RT60 − 1.451) > 0.5. */
export function isReverberant(rt60: number): boolean {
  return 1 / (1 + Math.exp(-(2.971 * rt60 - 1.451))) > 0.5;
}
