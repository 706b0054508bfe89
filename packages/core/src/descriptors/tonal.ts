import { foldHpcp, PITCH_CLASSES_FROM_A, pearson } from './chroma.ts';
import { FrameSeries } from './frame-series.ts';
import { createPeaks, findPeaks, type Peaks } from './peaks.ts';
import { crest, entropy } from './spectral-shape.ts';
import { cutFrame, frameCount, MagnitudeSpectrum } from './spectrum.ts';

export const TONAL_FRAME = 4096;
export const TONAL_HOP = 2048;
export const HPCP_SIZE = 36;

/**
 * Harmonic pitch class profile (Gómez 2006) with Essentia's Freesound settings: 36 bins (⅓ semitone),
 * bin 0 = A (440 Hz reference), peaks between 40 Hz and 5 kHz, each peak adds magnitude² × cos² of its
 * distance to the bin centre within a one-semitone window; normalized to a maximum of 1.
 */
export function hpcpFromPeaks(peaks: Peaks, tuningHz: number, out: Float32Array): void {
  out.fill(0);
  const size = out.length;
  const binsPerSemitone = size / 12;
  for (let p = 0; p < peaks.count; p++) {
    const f = peaks.frequencies[p];
    const weight = peaks.magnitudes[p] * peaks.magnitudes[p];
    const position = size * Math.log2(f / tuningHz);
    const centre = Math.round(position);
    for (let b = centre - 2; b <= centre + 2; b++) {
      const distance = (position - b) / binsPerSemitone;
      if (Math.abs(distance) > 0.5) continue;
      const c = Math.cos(Math.PI * distance);
      out[((b % size) + size) % size] += weight * c * c;
    }
  }
  let max = 0;
  for (let i = 0; i < size; i++) if (out[i] > max) max = out[i];
  if (max > 0) for (let i = 0; i < size; i++) out[i] /= max;
}

/** Deviation (cents, −50…50) of each peak from the 440 Hz equal-tempered grid, averaged on the circle by magnitude². */
function tuningOf(peaks: Peaks): number {
  let x = 0;
  let y = 0;
  for (let p = 0; p < peaks.count; p++) {
    const cents = 1200 * Math.log2(peaks.frequencies[p] / 440);
    const angle = (2 * Math.PI * cents) / 100;
    const w = peaks.magnitudes[p] * peaks.magnitudes[p];
    x += w * Math.cos(angle);
    y += w * Math.sin(angle);
  }
  if (x === 0 && y === 0) return 440;
  const deviation = (Math.atan2(y, x) / (2 * Math.PI)) * 100;
  return 440 * 2 ** (deviation / 1200);
}

export interface TonalFrames {
  series: FrameSeries;
  /** Chord label per tonal frame ('' where there is no harmonic content). */
  chords: string[];
  chordStrength: Float32Array;
}

/** HPCP, tuning and chord per 4096-sample frame (2048 hop). */
export function tonalFrames(signal: Float32Array, sampleRate: number): TonalFrames {
  const frames = frameCount(signal.length, TONAL_HOP, TONAL_FRAME);
  const series = new FrameSeries(frames);
  const spectrum = new MagnitudeSpectrum(TONAL_FRAME);
  const frame = new Float32Array(TONAL_FRAME);
  const mag = new Float32Array(spectrum.bins);
  const peaks = createPeaks(100);
  const binHz = sampleRate / TONAL_FRAME;
  const hpcpAll = series.vector('hpcp', HPCP_SIZE);
  const tuning = series.scalar('tuning_frequency');
  const hpcpCrest = series.scalar('hpcp_crest');
  const hpcpEntropy = series.scalar('hpcp_entropy');
  const hpcp = new Float32Array(HPCP_SIZE);
  const energy = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    cutFrame(signal, i * TONAL_HOP, frame);
    spectrum.compute(frame, mag);
    findPeaks(mag, binHz, 1e-4, 40, 5000, peaks);
    let e = 0;
    for (let p = 0; p < peaks.count; p++) e += peaks.magnitudes[p] * peaks.magnitudes[p];
    energy[i] = e;
    tuning[i] = tuningOf(peaks);
    hpcpFromPeaks(peaks, 440, hpcp);
    hpcpAll.set(hpcp, i * HPCP_SIZE);
    hpcpCrest[i] = crest(hpcp);
    hpcpEntropy[i] = entropy(hpcp);
  }
  const { chords, strength } = detectChords(hpcpAll, energy, sampleRate);
  return { series, chords, chordStrength: strength };
}

const TRIADS = buildTriadTemplates();

function buildTriadTemplates(): { label: string; template: Float64Array }[] {
  const out: { label: string; template: Float64Array }[] = [];
  for (let root = 0; root < 12; root++) {
    for (const [suffix, third] of [
      ['', 4],
      ['m', 3],
    ] as const) {
      const t = new Float64Array(12);
      t[root] = 1;
      t[(root + third) % 12] = 1;
      t[(root + 7) % 12] = 1;
      out.push({ label: `${PITCH_CLASSES_FROM_A[root]}${suffix}`, template: t });
    }
  }
  return out;
}

/**
 * Chords as in Essentia's ChordsDetection: the HPCP folded to 12 semitones, averaged over a 1 s window
 * around each frame, correlated with the 24 major/minor triad templates; the best is the frame's chord.
 */
function detectChords(
  hpcp: Float32Array,
  energy: Float32Array,
  sampleRate: number,
): { chords: string[]; strength: Float32Array } {
  const frames = energy.length;
  const half = Math.max(1, Math.round((0.5 * sampleRate) / TONAL_HOP));
  const folded = new Float64Array(frames * 12);
  for (let i = 0; i < frames; i++) {
    foldHpcp(hpcp.subarray(i * HPCP_SIZE, (i + 1) * HPCP_SIZE), folded.subarray(i * 12, (i + 1) * 12));
  }
  let maxEnergy = 0;
  for (let i = 0; i < frames; i++) if (energy[i] > maxEnergy) maxEnergy = energy[i];
  const chords: string[] = [];
  const strength = new Float32Array(frames);
  const window = new Float64Array(12);
  for (let i = 0; i < frames; i++) {
    if (maxEnergy === 0 || energy[i] < maxEnergy * 1e-4) {
      chords.push('');
      continue;
    }
    window.fill(0);
    for (let j = Math.max(0, i - half); j <= Math.min(frames - 1, i + half); j++) {
      for (let s = 0; s < 12; s++) window[s] += folded[j * 12 + s] * Math.sqrt(energy[j]);
    }
    let best = '';
    let bestScore = 0;
    for (const { label, template } of TRIADS) {
      const score = pearson(window, template);
      if (score > bestScore) {
        bestScore = score;
        best = label;
      }
    }
    chords.push(best);
    strength[i] = bestScore;
  }
  return { chords, strength };
}
