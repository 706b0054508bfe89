/**
 * Our beat tracker (the default rhythm backend), after the reference's RhythmExtractor2013 "multifeature"
 * method (BeatTrackerMultiFeature, Zapata et al. 2014): beats are tracked on several onset detection
 * functions (beat-odf.ts) with Degara's probabilistic tracker (tempo-tap-degara.ts), and the candidate
 * that agrees most with the others is kept (tempo-tap-agreement.ts). Like the reference, it lays a beat
 * grid over every sound long enough to hold one, featureless or not: on a sound without onsets the grid
 * sits at the tempo prior (near 120 BPM) and drifts with whatever weak periodicity there is.
 */
import { beatOdfs } from './beat-odf.ts';
import { maxAgreement } from './tempo-tap-agreement.ts';
import { tempoTapDegara } from './tempo-tap-degara.ts';

/** The beat grid the rhythm descriptors are built from (either backend). */
export interface BeatGrid {
  bpm: number;
  /** The tracker's confidence (mean information gain of the chosen candidate, 0–5.32; 0 under 5 s). */
  bpmConfidence: number;
  /** Beat times, s. */
  ticks: number[];
  /** Differences of consecutive beat times, s. */
  bpmIntervals: number[];
}

export interface TrackedBeats {
  bpm: number;
  confidence: number;
  /** Beat times in seconds. */
  ticks: number[];
}

export interface TrackBeatsOptions {
  /**
   * Track the information gain (512 hop) as a fourth candidate, as the reference does (default true). Without
   * it the choice among candidates differs from the reference's on the two ambient reference recordings of
   * 5 s or more; it costs a second FFT every 1024 samples (≈ +0.08 CPU-s per audio minute). `false` is kept
   * for comparisons.
   */
  infoGain?: boolean;
}

/** Tempo tolerance of the reference's tempo summary, BPM. */
const TEMPO_TOLERANCE = 5;

/**
 * The tempo RhythmExtractor2013 reports for a beat sequence: each interval's tempo is halved and counted in
 * whole-BPM bins (so neighbouring tempi pool in 2-BPM bins); the fullest bin (the lowest on a tie), doubled,
 * is the estimate, and the tempo is the mean of the intervals' tempi within 5 BPM of it.
 */
export function gridTempo(ticks: number[]): number {
  if (ticks.length < 2) return 0;
  const tempi = ticks.slice(1).map((t, i) => 60 / (t - ticks[i]));
  const counts: number[] = [];
  for (const bpm of tempi) {
    const bin = Math.round(bpm / 2);
    counts[bin] = (counts[bin] ?? 0) + 1;
  }
  let mode = 0;
  for (let i = 0; i < counts.length; i++) if ((counts[i] ?? 0) > (counts[mode] ?? 0)) mode = i;
  const closest = mode * 2;
  const near = tempi.filter((bpm) => Math.abs(closest - bpm) < TEMPO_TOLERANCE);
  return near.length > 0 ? near.reduce((a, b) => a + b, 0) / near.length : closest;
}

/**
 * Beats of a mono signal: Degara's tracker on the complex-domain difference, the energy flux and the mel
 * flux (each at 1024 hop, doubled to 86 Hz by interpolation as the reference does) and on the
 * information gain (512 hop; `infoGain: false` leaves it out), then the candidate with the most agreement. The complex-domain candidate comes first, so it is the one kept when no
 * candidate has beats after 5 s to compare.
 */
export function trackBeats(
  signal: Float32Array,
  sampleRate: number,
  options: TrackBeatsOptions = {},
): TrackedBeats {
  const infoGain = options.infoGain ?? true;
  const odfs = beatOdfs(signal, sampleRate, infoGain);
  const candidates = [odfs.complex, odfs.energy, odfs.mel].map((odf) => tempoTapDegara(odf, odfs.rate, 2));
  // The information gain is already at 86 Hz (512 hop): no upsampling, as in the reference.
  if (infoGain) candidates.push(tempoTapDegara(odfs.infoGain, odfs.infoRate, 1));
  const { ticks, confidence } = maxAgreement(candidates);
  return { bpm: gridTempo(ticks), confidence, ticks };
}
