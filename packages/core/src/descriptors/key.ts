/**
 * `tonal.key` as the reference extractor computes it: Essentia's KeyExtractor as the FreesoundExtractor
 * configures it (profile `bgate`, 4096-sample frames without overlap, a 12-bin HPCP), a pass over the
 * signal of its own: its frames, window, peaks and HPCP are not the `tonal.hpcp` ones.
 */

import { PITCH_CLASSES_FROM_A, pearson } from './chroma.ts';
import { createPeaks, findPeaks } from './peaks.ts';
import { SpectralWhitening } from './spectral-whitening.ts';
import { cutFrame, frameCount } from './spectrum.ts';
import { Float32MagnitudeSpectrum } from './spectrum-f32.ts';
import { type HpcpSettings, hpcpFromPeaks } from './tonal.ts';

export interface KeyEstimate {
  /** Tonic, sharps only (A A# B C C# D D# E F F# G G#). */
  key: string;
  scale: 'major' | 'minor';
  /** Pearson correlation of the profile with the key's; 0 when the sound has no peaks to read. */
  strength: number;
}

export const KEY_FRAME = 4096;
/** The reference passes the frame size as the hop: frames do not overlap. */
export const KEY_HOP = 4096;
const KEY_MIN_HZ = 25;
const KEY_MAX_HZ = 3500;
const KEY_PEAK_THRESHOLD = 1e-4;
const KEY_MAX_PEAKS = 60;
/** After the mean profile is scaled to a maximum of 1, bins under this are zeroed (Key's pcpThreshold). */
const KEY_PCP_GATE = 0.2;

/** The KeyExtractor's HPCP: 12 bins, a 1-semitone cosine window, four harmonics, frames left unscaled. */
export const KEY_HPCP: HpcpSettings = {
  minHz: KEY_MIN_HZ,
  maxHz: KEY_MAX_HZ,
  windowSemitones: 1,
  weight: 'cosine',
  harmonics: 4,
  normalize: false,
};

/**
 * Essentia's `bgate` key profiles (Faraldo et al. 2017: BeatPort medians with the four least relevant
 * degrees zeroed), scale degrees from the tonic.
 */
const BGATE_MAJOR = [1, 0, 0.42, 0, 0.53, 0.37, 0, 0.77, 0, 0.38, 0.21, 0.3];
const BGATE_MINOR = [1, 0, 0.36, 0.39, 0, 0.38, 0, 0.74, 0.27, 0, 0.42, 0.23];

/**
 * Key from a 12-bin pitch-class profile (bin 0 = A) as the reference's streaming Key decides it: the
 * profile scaled to a maximum of 1, bins under 0.2 zeroed, then the Pearson correlation with the major and
 * the minor profile at each of the 12 tonics; the best major wins only if it beats the best minor, the
 * first tonic on a tie. A profile without content gives A minor, strength 0 (the reference's correlations
 * are undefined there).
 */
export function keyFromProfile(profile: ArrayLike<number>): KeyEstimate {
  const pcp = Float64Array.from(profile);
  let max = 0;
  for (const v of pcp) if (v > max) max = v;
  if (!(max > 0)) return { key: PITCH_CLASSES_FROM_A[0], scale: 'minor', strength: 0 };
  for (let i = 0; i < 12; i++) pcp[i] = pcp[i] / max < KEY_PCP_GATE ? 0 : pcp[i] / max;
  const best = { major: { r: -1, tonic: 0 }, minor: { r: -1, tonic: 0 } };
  const rotated = new Float64Array(12);
  for (let tonic = 0; tonic < 12; tonic++) {
    for (let i = 0; i < 12; i++) rotated[i] = pcp[(i + tonic) % 12];
    const major = pearson(rotated, BGATE_MAJOR);
    const minor = pearson(rotated, BGATE_MINOR);
    if (major > best.major.r) best.major = { r: major, tonic };
    if (minor > best.minor.r) best.minor = { r: minor, tonic };
  }
  const scale = best.major.r > best.minor.r ? 'major' : 'minor';
  const { r, tonic } = best[scale];
  return { key: PITCH_CLASSES_FROM_A[tonic], scale, strength: r };
}

/**
 * The reference's key of a mono signal: Hann frames of 4096 samples every 4096 (centred on i·4096, the
 * last ones reaching past the end, as its FrameCutter cuts them), the 60 largest spectral peaks above 1e-4
 * between 25 Hz and 3.5 kHz, whitened against the frame's spectral envelope (`SpectralWhitening`), a 12-bin
 * HPCP with four harmonics summed over the frames (the reference's mean, up to a scale the key ignores),
 * then `keyFromProfile`.
 */
export function extractKey(signal: Float32Array, sampleRate: number): KeyEstimate {
  const frames = frameCount(signal.length, KEY_HOP, KEY_FRAME);
  const spectrum = new Float32MagnitudeSpectrum(KEY_FRAME, normalizedHann(KEY_FRAME));
  const frame = new Float32Array(KEY_FRAME);
  const mag = new Float32Array(spectrum.bins);
  const peaks = createPeaks(KEY_MAX_PEAKS);
  const whitening = new SpectralWhitening(spectrum.bins, sampleRate, KEY_MAX_HZ);
  const binHz = sampleRate / KEY_FRAME;
  const hpcp = new Float32Array(12);
  const sum = new Float64Array(12);
  for (let i = 0; i < frames; i++) {
    cutFrame(signal, i * KEY_HOP, frame);
    spectrum.compute(frame, mag);
    findPeaks(mag, binHz, KEY_PEAK_THRESHOLD, KEY_MIN_HZ, KEY_MAX_HZ, peaks, true);
    if (peaks.count === 0) continue;
    whitening.apply(mag, peaks);
    hpcpFromPeaks(peaks, hpcp, KEY_HPCP);
    for (let b = 0; b < 12; b++) sum[b] += hpcp[b];
  }
  return keyFromProfile(sum);
}

/** Hann window scaled to area 2, as Essentia's normalized windows (a full-scale sine peaks near 1). */
function normalizedHann(size: number): Float32Array {
  const w = new Float32Array(size);
  let area = 0;
  for (let i = 0; i < size; i++) {
    w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (size - 1));
    area += w[i];
  }
  for (let i = 0; i < size; i++) w[i] *= 2 / area;
  return w;
}
