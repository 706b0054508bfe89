import { foldHpcp, PITCH_CLASSES_FROM_A, pearson } from './chroma.ts';
import { FrameSeries } from './frame-series.ts';
import { createPeaks, findPeaks, type Peaks } from './peaks.ts';
import { crest, entropy } from './spectral-shape.ts';
import { cutFrame, frameCount } from './spectrum.ts';
import { Float32MagnitudeSpectrum } from './spectrum-f32.ts';

export const TONAL_FRAME = 4096;
export const TONAL_HOP = 2048;
export const HPCP_SIZE = 36;

/** How an HPCP spreads spectral peaks over its bins (Essentia's HPCP parameters of the same names). */
export interface HpcpSettings {
  /** Peaks outside [minHz, maxHz] add nothing. */
  minHz: number;
  maxHz: number;
  /** Width (semitones) of the window each peak spreads over the bins around it. */
  windowSemitones: number;
  /** The window's shape: cos(π·d/w), or its square. */
  weight: 'cosine' | 'squaredCosine';
  /**
   * Essentia's `harmonics`: each peak also counts for the pitch classes whose first `harmonics` + 1
   * partials it could be (0: only its own; see `harmonicContributions`).
   */
  harmonics?: number;
  /** Scale each frame's profile to a maximum of 1 (Essentia's unitMax), or leave it in energy units. */
  normalize?: boolean;
}

/**
 * Essentia HPCP's table of harmonic contributions: partial h (1 … harmonics + 1) sits 12·log2 h semitones
 * over its fundamental, folded into one octave; partials on the same pitch class add their weights
 * (1 / max(1, semitones / 24) each). A peak adds to the bins of each fundamental it may belong to with
 * that weight squared.
 */
export function harmonicContributions(harmonics: number): { semitone: number; weight: number }[] {
  const precision = 1e-5;
  const out: { semitone: number; weight: number }[] = [];
  for (let h = 1; h <= harmonics + 1; h++) {
    let semitone = 12 * Math.log2(h);
    const weight = 1 / Math.max(1, (semitone / 12) * 0.5);
    while (semitone >= 12 - precision) semitone -= 12;
    const same = out.find((c) => Math.abs(c.semitone - semitone) < precision);
    if (same) same.weight += weight;
    else out.push({ semitone, weight });
  }
  return out;
}

/**
 * `tonal.hpcp` as the reference extractor (Essentia's FreesoundExtractor, current master) sets it: its own
 * peaks (the 60 largest between 20 Hz and 3.5 kHz), a 1-semitone cosine window, no harmonics.
 */
export const TONAL_HPCP: HpcpSettings = {
  minHz: 20,
  maxHz: 3500,
  windowSemitones: 1,
  weight: 'cosine',
};

/** The peaks `tonal.hpcp` reads: at most this many, the largest first. */
export const HPCP_MAX_PEAKS = 60;

/**
 * Harmonic pitch class profile (Gómez 2006) as Essentia's HPCP computes it: `out.length` bins (36: ⅓
 * semitone), bin 0 = A at 440 Hz; each peak within [minHz, maxHz] adds magnitude² × weight(d) to every
 * bin whose centre lies within w/2 of it (d its distance in semitones, w the window width, weight
 * cos(π·d/w) or its square), and as much again, times its harmonic weight², around each fundamental it may
 * be a partial of (`harmonics`, default 0); normalized to a maximum of 1 unless `normalize` is false (all
 * zeros stay zeros).
 */
export function hpcpFromPeaks(peaks: Peaks, out: Float32Array, settings: HpcpSettings = TONAL_HPCP): void {
  out.fill(0);
  const size = out.length;
  const perSemitone = Math.floor(size / 12);
  const { minHz, maxHz, windowSemitones, weight } = settings;
  const contributions = contributionTable(settings.harmonics ?? 0);
  const half = (perSemitone * windowSemitones) / 2;
  const squared = weight === 'squaredCosine';
  const radiansPerBin = Math.PI / perSemitone / windowSemitones;
  for (let p = 0; p < peaks.count; p++) {
    const peakHz = peaks.frequencies[p];
    if (peakHz < minHz || peakHz > maxHz) continue;
    const energy = peaks.magnitudes[p] * peaks.magnitudes[p];
    const peakPosition = size * Math.log2(peakHz / 440);
    for (const contribution of contributions) {
      // The fundamental this peak would be the partial of, `semitone` lower.
      const position = peakPosition - (size * contribution.semitone) / 12;
      const gain = energy * contribution.weight * contribution.weight;
      for (let b = Math.ceil(position - half); b <= Math.floor(position + half); b++) {
        const c = Math.cos(radiansPerBin * Math.abs(position - b));
        out[((b % size) + size) % size] += gain * (squared ? c * c : c);
      }
    }
  }
  if (settings.normalize === false) return;
  let max = 0;
  for (let i = 0; i < size; i++) if (out[i] > max) max = out[i];
  if (max > 0) for (let i = 0; i < size; i++) out[i] /= max;
}

const contributionTables = new Map<number, { semitone: number; weight: number }[]>();

function contributionTable(harmonics: number): { semitone: number; weight: number }[] {
  let table = contributionTables.get(harmonics);
  if (!table) {
    table = harmonicContributions(harmonics);
    contributionTables.set(harmonics, table);
  }
  return table;
}

/**
 * The running tuning estimate of Essentia's TuningFrequency (1-cent resolution), one call per frame in
 * order: each frame's peaks vote with their linear magnitudes for their deviation from the 440 Hz
 * equal-tempered grid; the frame's winning deviation gains the frame's peak energy (Σ magnitude²) in a
 * histogram kept over the whole sound, and the frame's output is that histogram's winner so far (the
 * first on a tie; 440 Hz before any vote; deviations below −35 cents read as the next semitone's, +100).
 * A frame without peaks repeats the current estimate.
 */
export function tuningStep(peaks: Peaks, global: Float64Array, frame: Float64Array): number {
  if (peaks.count > 0) {
    frame.fill(0);
    let energy = 0;
    for (let p = 0; p < peaks.count; p++) {
      const f = peaks.frequencies[p];
      const m = peaks.magnitudes[p];
      energy += m * m;
      if (f <= 0) continue;
      const note = 12 * Math.log2(f / 440);
      const deviation = 100 * (note - Math.floor(note + 0.5));
      let index = Math.trunc(50 + deviation + 0.5);
      if (index === frame.length) index = 0;
      frame[index] += m;
    }
    global[argmax(frame)] += energy;
  }
  const best = argmax(global);
  if (global[best] === 0) return 440;
  let cents = best - 50;
  if (cents < -35) cents += 100;
  return 440 * 2 ** (cents / 1200);
}

/** The first index of the largest value. */
function argmax(x: Float64Array): number {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
  return best;
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
  const spectrum = new Float32MagnitudeSpectrum(TONAL_FRAME);
  const frame = new Float32Array(TONAL_FRAME);
  const mag = new Float32Array(spectrum.bins);
  // The tuning estimate reads every peak above 1e-5 in 40 Hz – 5 kHz (the reference's maxPeaks is 10000; a
  // 4096-point frame holds fewer); the HPCP reads its own, fewer and lower.
  const peaks = createPeaks(TONAL_FRAME / 2);
  const hpcpPeaks = createPeaks(HPCP_MAX_PEAKS);
  const binHz = sampleRate / TONAL_FRAME;
  const hpcpAll = series.vector('hpcp', HPCP_SIZE);
  const tuning = series.scalar('tuning_frequency');
  const hpcpCrest = series.scalar('hpcp_crest');
  const hpcpEntropy = series.scalar('hpcp_entropy');
  const hpcp = new Float32Array(HPCP_SIZE);
  const tuningVotes = new Float64Array(100);
  const tuningFrame = new Float64Array(100);
  const energy = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    cutFrame(signal, i * TONAL_HOP, frame);
    spectrum.compute(frame, mag);
    findPeaks(mag, binHz, 1e-5, 40, 5000, peaks, true);
    let e = 0;
    for (let p = 0; p < peaks.count; p++) e += peaks.magnitudes[p] * peaks.magnitudes[p];
    energy[i] = e;
    tuning[i] = tuningStep(peaks, tuningVotes, tuningFrame);
    findPeaks(mag, binHz, 1e-5, TONAL_HPCP.minHz, TONAL_HPCP.maxHz, hpcpPeaks, true);
    hpcpFromPeaks(hpcpPeaks, hpcp);
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
