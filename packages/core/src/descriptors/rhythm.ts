/** Rhythm descriptors derived from the beat grid (the grid itself comes from beat-tracker.ts or essentia.js). */

export interface BpmHistogramPeaks {
  histogram: number[];
  firstPeakBpm: number;
  firstPeakWeight: number;
  firstPeakSpread: number;
  secondPeakBpm: number;
  secondPeakWeight: number;
  secondPeakSpread: number;
}

/**
 * Histogram of the instantaneous tempi 60/interval over 250 one-BPM bins, normalized to sum 1, and its two
 * highest peaks (the second at least 4 BPM from the first) with weight and spread (share of the peak's
 * ±2-bin neighbourhood outside the peak bin), as in Essentia's BpmHistogramDescriptors.
 */
export function bpmHistogram(intervals: number[]): BpmHistogramPeaks {
  const histogram = new Array<number>(250).fill(0);
  let total = 0;
  for (const interval of intervals) {
    if (!(interval > 0)) continue;
    const bin = Math.round(60 / interval);
    if (bin >= 0 && bin < 250) {
      histogram[bin]++;
      total++;
    }
  }
  const empty = {
    histogram,
    firstPeakBpm: 0,
    firstPeakWeight: 0,
    firstPeakSpread: 0,
    secondPeakBpm: 0,
    secondPeakWeight: 0,
    secondPeakSpread: 0,
  };
  if (total === 0) return empty;
  for (let i = 0; i < 250; i++) histogram[i] /= total;
  const peakAt = (exclude: number): number => {
    let best = -1;
    for (let i = 0; i < 250; i++) {
      if (exclude >= 0 && Math.abs(i - exclude) < 4) continue;
      if (histogram[i] > 0 && (best < 0 || histogram[i] > histogram[best])) best = i;
    }
    return best;
  };
  const spread = (peak: number): number => {
    let around = 0;
    for (let i = Math.max(0, peak - 2); i <= Math.min(249, peak + 2); i++) around += histogram[i];
    return around > 0 ? (around - histogram[peak]) / around : 0;
  };
  const first = peakAt(-1);
  const second = peakAt(first);
  return {
    histogram,
    firstPeakBpm: first,
    firstPeakWeight: histogram[first],
    firstPeakSpread: spread(first),
    secondPeakBpm: Math.max(second, 0),
    secondPeakWeight: second >= 0 ? histogram[second] : 0,
    secondPeakSpread: second >= 0 ? spread(second) : 0,
  };
}

/** The six BeatsLoudness bands of Essentia (Hz). */
export const BEAT_BAND_EDGES = [20, 150, 400, 3200, 7000, 22000];

/**
 * Loudness at each beat: the mean energy of the low-level frames within 50 ms after the beat, and the share
 * of that energy in each of six bands.
 */
export function beatLoudness(
  beats: number[],
  frameEnergy: Float32Array,
  bandEnergies: Float32Array,
  bands: number,
  hopSeconds: number,
): { loudness: number[]; bandRatios: number[][] } {
  const loudness: number[] = [];
  const bandRatios: number[][] = [];
  for (const t of beats) {
    const first = Math.max(0, Math.round(t / hopSeconds));
    const last = Math.min(frameEnergy.length - 1, Math.round((t + 0.05) / hopSeconds));
    if (first > last) continue;
    let e = 0;
    const perBand = new Array<number>(bands).fill(0);
    for (let f = first; f <= last; f++) {
      e += frameEnergy[f];
      for (let b = 0; b < bands; b++) perBand[b] += bandEnergies[f * bands + b];
    }
    const bandTotal = perBand.reduce((a, b) => a + b, 0);
    loudness.push(e / (last - first + 1));
    bandRatios.push(perBand.map((v) => (bandTotal > 0 ? v / bandTotal : 0)));
  }
  return { loudness, bandRatios };
}

/**
 * How well the sound's length fits a whole number of beats (after Font & Serra 2016, Essentia's
 * LoopBpmConfidence): for the full length and the length with leading/trailing near-silence (below
 * −40 dB of the peak envelope) removed, the deviation from the nearest whole number of beats (at least one);
 * confidence = 1 − smallest deviation / half a beat, in [0, 1].
 */
export function loopConfidence(
  durationS: number,
  leadingSilenceS: number,
  trailingSilenceS: number,
  bpm: number,
): number {
  if (!(bpm > 0) || durationS <= 0) return 0;
  const beat = 60 / bpm;
  const candidates = [
    durationS,
    durationS - leadingSilenceS,
    durationS - trailingSilenceS,
    durationS - leadingSilenceS - trailingSilenceS,
  ];
  let best = Number.POSITIVE_INFINITY;
  for (const d of candidates) {
    if (d < beat * 0.5) continue;
    const beats = Math.max(1, Math.round(d / beat));
    best = Math.min(best, Math.abs(d - beats * beat));
  }
  if (!Number.isFinite(best)) return 0;
  return Math.max(0, 1 - best / (beat / 2));
}
