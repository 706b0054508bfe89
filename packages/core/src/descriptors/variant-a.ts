import type { BeatGrid } from './beat-tracker.ts';
import { PITCH_CLASSES_FROM_A } from './chroma.ts';
import type { EnvelopeDescriptors } from './envelope.ts';
import type { FrameSeries } from './frame-series.ts';
import type { KeyEstimate } from './key.ts';
import type { LoudnessResult } from './loudness.ts';
import type { OnsetRate } from './onset-rate.ts';
import type { PitchEnvelope } from './pitch-envelope.ts';
import { bpmHistogram } from './rhythm.ts';
import { finite, scalarStats, vectorStats } from './statistics.ts';
import type { VariantATree } from './types.ts';

/**
 * Names the descriptor definitions a stored analysis was made with; 2 since issue 37 brought the whole
 * tree onto the reference's definitions, 3 since `tonal.hpcp` (and its entropy, crest and peak count)
 * reads the reference's own HPCP peaks and window, 4 since the onsets (`rhythm.onset_*`) are the
 * reference's OnsetRate's, 5 since the key (`tonal.key_*`, variant B `tonality` and
 * `tonality_confidence`) is the reference's KeyExtractor's, 6 since variant B's `pitch`, `pitch_min`,
 * `pitch_max`, `pitch_var`, `note_*`, `duration_effective` and `start_time` are read from the reference
 * pitch track and envelope in the tree and `lowlevel.sound_start_frame` (and so `start_time`) is the
 * reference's StartStopSilence start, 7 since `rhythm.bpm_loop` and `bpm_loop_confidence` (and so variant
 * B's `bpm`, `bpm_confidence` and `loopable`) are the reference's loop estimate's and `warmth` reads its
 * f0 from the reference pitch track (analyses made before read `earshot-descriptors 1` to `6`: reprocess
 * them).
 */
export const EXTRACTOR_VERSION = 'earshot-descriptors 7';

/** The analyzer a catalogue records for analyses this package made (beside the extractor version). */
export const CORE_ANALYZER = 'earshot-core';

/** Everything the tree is built from, computed by the analysis groups. */
export interface AnalysisParts {
  sampleRate: number;
  duration: number;
  lowlevel: FrameSeries;
  lowlevelHop: number;
  tonal: FrameSeries;
  chords: string[];
  chordStrength: Float32Array;
  /** The reference's KeyExtractor run (key.ts). */
  key: KeyEstimate;
  loudness: LoudnessResult;
  envelope: EnvelopeDescriptors;
  beatGrid: BeatGrid;
  /** Onsets as the reference's OnsetRate finds them (onset-rate.ts). */
  onsets: OnsetRate;
  beatsLoudness: number[];
  beatsBandRatios: number[][];
  bpmLoop: number;
  bpmLoopConfidence: number;
  soundStartFrame: number;
  soundStopFrame: number;
  averageLoudness: number;
  dynamicComplexity: number;
  /** The pitch-envelope `sfx.*` values of the `pitch` series (pitch-envelope.ts). */
  pitchSfx: PitchEnvelope;
}

/** Low-level frame series that get the full statistics block, named as in Essentia's Freesound extractor. */
export const LOWLEVEL_SCALARS = [
  'barkbands_crest',
  'barkbands_flatness_db',
  'barkbands_kurtosis',
  'barkbands_skewness',
  'barkbands_spread',
  'dissonance',
  'erbbands_crest',
  'erbbands_flatness_db',
  'erbbands_kurtosis',
  'erbbands_skewness',
  'erbbands_spread',
  'hfc',
  'melbands_crest',
  'melbands_flatness_db',
  'melbands_kurtosis',
  'melbands_skewness',
  'melbands_spread',
  'pitch',
  'pitch_instantaneous_confidence',
  'pitch_salience',
  'silence_rate_20dB',
  'silence_rate_30dB',
  'silence_rate_60dB',
  'silence_rate_90dB',
  'spectral_centroid',
  'spectral_complexity',
  'spectral_crest',
  'spectral_decrease',
  'spectral_energy',
  'spectral_energyband_high',
  'spectral_energyband_low',
  'spectral_energyband_middle_high',
  'spectral_energyband_middle_low',
  'spectral_entropy',
  'spectral_flatness_db',
  'spectral_flux',
  'spectral_kurtosis',
  'spectral_rms',
  'spectral_rolloff',
  'spectral_skewness',
  'spectral_spread',
  'spectral_strongpeak',
  'zerocrossingrate',
] as const;

export const LOWLEVEL_VECTORS = [
  'barkbands',
  'erbbands',
  'gfcc',
  'melbands',
  'melbands96',
  'mfcc',
  'spectral_contrast_coeffs',
  'spectral_contrast_valleys',
] as const;

export function stats(series: FrameSeries, name: string) {
  return scalarStats(series.scalar(name));
}

export function vstats(series: FrameSeries, name: string) {
  const v = series.vectors.get(name);
  if (!v) throw new Error(`missing frame vector ${name}`);
  return vectorStats(v.data, v.dims);
}

function flatRows(rows: number[][], dims: number): Float32Array {
  const out = new Float32Array(rows.length * dims);
  rows.forEach((row, i) => {
    out.set(row, i * dims);
  });
  return out;
}

/** Chord statistics as in Freesound's legacy tonal block. */
function chordDescriptors(chords: string[], strength: Float32Array) {
  const labelled = chords.filter((c) => c !== '');
  const progression: string[] = [];
  for (const c of labelled) if (progression[progression.length - 1] !== c) progression.push(c);
  const histogramMap = new Map<string, number>();
  for (const c of labelled) histogramMap.set(c, (histogramMap.get(c) ?? 0) + 1);
  const labels = [...PITCH_CLASSES_FROM_A, ...PITCH_CLASSES_FROM_A.map((r) => `${r}m`)];
  const histogram = labels.map((l) =>
    labelled.length ? (100 * (histogramMap.get(l) ?? 0)) / labelled.length : 0,
  );
  let top = '';
  let topCount = 0;
  for (const [label, count] of histogramMap) {
    if (count > topCount) {
      top = label;
      topCount = count;
    }
  }
  const strengths = Array.from(strength).filter((_, i) => chords[i] !== '');
  return {
    chords_progression: progression,
    chords_histogram: histogram,
    chords_number_rate: labelled.length ? histogramMap.size / labelled.length : 0,
    chords_changes_rate: labelled.length ? Math.max(0, progression.length - 1) / labelled.length : 0,
    chords_key: top ? top.replace(/m$/, '') : 'C',
    chords_scale: top.endsWith('m') ? 'minor' : 'major',
    chords_strength: scalarStats(strengths),
  };
}

function countPeaks(x: number[]): number {
  let n = 0;
  for (let i = 0; i < x.length; i++) {
    const prev = x[(i + x.length - 1) % x.length];
    const next = x[(i + 1) % x.length];
    if (x[i] > 0.1 && x[i] >= prev && x[i] > next) n++;
  }
  return n;
}

/** The `sfx.*` values read off the amplitude envelope alone (ENVELOPE_SFX names them). */
export function envelopeSfx(envelope: EnvelopeDescriptors): VariantATree {
  return {
    der_av_after_max: finite(envelope.derAvAfterMax),
    effective_duration: finite(envelope.effectiveDuration),
    flatness: finite(envelope.flatness),
    logattacktime: finite(envelope.logAttackTime),
    max_der_before_max: finite(envelope.maxDerBeforeMax),
    max_to_total: finite(envelope.maxToTotal),
    strongdecay: finite(envelope.strongDecay),
    tc_to_total: finite(envelope.temporalCentroid),
    temporal_centroid: finite(envelope.temporalCentroid),
    temporal_decrease: finite(envelope.temporalDecrease),
    temporal_kurtosis: finite(envelope.temporalKurtosis),
    temporal_skewness: finite(envelope.temporalSkewness),
    temporal_spread: finite(envelope.temporalSpread),
  };
}

/** Names of the `sfx.*` values envelopeSfx gives. */
export const ENVELOPE_SFX: readonly string[] = [
  'der_av_after_max',
  'effective_duration',
  'flatness',
  'logattacktime',
  'max_der_before_max',
  'max_to_total',
  'strongdecay',
  'tc_to_total',
  'temporal_centroid',
  'temporal_decrease',
  'temporal_kurtosis',
  'temporal_skewness',
  'temporal_spread',
];

export function buildVariantA(parts: AnalysisParts): VariantATree {
  const { lowlevel, tonal, beatGrid, loudness, envelope } = parts;
  const low: VariantATree = {};
  for (const name of LOWLEVEL_SCALARS) low[name] = stats(lowlevel, name);
  for (const name of LOWLEVEL_VECTORS) low[name] = vstats(lowlevel, name);
  low.average_loudness = finite(parts.averageLoudness);
  low.dynamic_complexity = finite(parts.dynamicComplexity);
  low.loudness_ebu128 = {
    integrated: finite(loudness.integrated),
    loudness_range: finite(loudness.loudnessRange),
    momentary: scalarStats(loudness.momentary),
    short_term: scalarStats(loudness.shortTerm),
  };
  low.sound_start_frame = parts.soundStartFrame;
  low.sound_stop_frame = parts.soundStopFrame;

  const histogram = bpmHistogram(beatGrid.bpmIntervals);
  const rhythm: VariantATree = {
    beats_count: beatGrid.ticks.length,
    beats_position: beatGrid.ticks.map(finite),
    beats_loudness: scalarStats(parts.beatsLoudness),
    beats_loudness_band_ratio: vectorStats(flatRows(parts.beatsBandRatios, 6), 6),
    bpm: finite(beatGrid.bpm),
    bpm_confidence: finite(beatGrid.bpmConfidence),
    bpm_histogram: histogram.histogram,
    bpm_histogram_first_peak_bpm: histogram.firstPeakBpm,
    bpm_histogram_first_peak_spread: histogram.firstPeakSpread,
    bpm_histogram_first_peak_weight: histogram.firstPeakWeight,
    bpm_histogram_second_peak_bpm: histogram.secondPeakBpm,
    bpm_histogram_second_peak_spread: histogram.secondPeakSpread,
    bpm_histogram_second_peak_weight: histogram.secondPeakWeight,
    bpm_intervals: beatGrid.bpmIntervals.map(finite),
    bpm_loop: finite(parts.bpmLoop),
    bpm_loop_confidence: finite(parts.bpmLoopConfidence),
    onset_count: parts.onsets.times.length,
    onset_rate: finite(parts.onsets.rate),
    onset_times: parts.onsets.times.map(finite),
  };

  const hpcp = vstats(tonal, 'hpcp');
  const { key } = parts;
  const tonalTree: VariantATree = {
    hpcp,
    hpcp_crest: stats(tonal, 'hpcp_crest'),
    hpcp_entropy: stats(tonal, 'hpcp_entropy'),
    hpcp_peak_count: countPeaks(hpcp.mean),
    tuning_frequency: stats(tonal, 'tuning_frequency'),
    key_key: key.key,
    key_scale: key.scale,
    key_strength: finite(key.strength),
    ...chordDescriptors(parts.chords, parts.chordStrength),
  };

  const sfxParts: VariantATree = {
    ...envelopeSfx(envelope),
    duration: finite(parts.duration),
    inharmonicity: stats(lowlevel, 'inharmonicity'),
    oddtoevenharmonicenergyratio: stats(lowlevel, 'oddtoevenharmonicenergyratio'),
    pitch_after_max_to_before_max_energy_ratio: finite(parts.pitchSfx.afterMaxToBeforeMaxEnergyRatio),
    pitch_centroid: finite(parts.pitchSfx.centroid),
    pitch_max_to_total: finite(parts.pitchSfx.maxToTotal),
    pitch_min_to_total: finite(parts.pitchSfx.minToTotal),
    tristimulus: vstats(lowlevel, 'tristimulus'),
  };
  // Alphabetical, as the tree has always been written (the envelope values come in one block).
  const sfx = Object.fromEntries(Object.entries(sfxParts).sort(([a], [b]) => (a < b ? -1 : 1)));

  return {
    lowlevel: low,
    rhythm,
    tonal: tonalTree,
    sfx,
    metadata: {
      audio_properties: {
        analysis_sample_rate: parts.sampleRate,
        length: finite(parts.duration),
        downmix: 'mix',
      },
      version: { extractor: EXTRACTOR_VERSION },
    },
  };
}
