import type { ScalarStats, VectorStats } from './statistics.ts';

/** The variant-B dictionary: every content descriptor the contract names, with its contract type. */
export interface VariantB {
  amplitude_peak_ratio: number;
  beat_count: number;
  beat_loudness: number;
  beat_times: number[];
  boominess: number;
  bpm: number;
  bpm_confidence: number;
  brightness: number;
  chord_count: number;
  chord_progression: string[];
  decay_strength: number;
  depth: number;
  dissonance: number;
  duration_effective: number;
  dynamic_range: number;
  hardness: number;
  hpcp: number[];
  hpcp_crest: number;
  hpcp_entropy: number;
  inharmonicity: number;
  log_attack_time: number;
  loopable: boolean;
  loudness: number;
  mfcc: number[];
  note_confidence: number;
  note_midi: number;
  note_name: string;
  onset_count: number;
  onset_times: number[];
  pitch: number;
  pitch_max: number;
  pitch_min: number;
  pitch_salience: number;
  pitch_var: number;
  reverbness: boolean;
  roughness: number;
  sharpness: number;
  silence_rate: number;
  single_event: boolean;
  spectral_centroid: number;
  spectral_complexity: number;
  spectral_crest: number;
  spectral_energy: number;
  spectral_entropy: number;
  spectral_flatness: number;
  spectral_rolloff: number;
  spectral_skewness: number;
  spectral_spread: number;
  start_time: number;
  temporal_centroid: number;
  temporal_centroid_ratio: number;
  temporal_decrease: number;
  temporal_skewness: number;
  temporal_spread: number;
  tonality: string;
  tonality_confidence: number;
  tristimulus: number[];
  warmth: number;
  zero_crossing_rate: number;
}

/** A node of the variant-A tree: dotted names such as `lowlevel.mfcc.mean` address its leaves. */
export type TreeValue = number | string | number[] | string[] | ScalarStats | VectorStats | VariantATree;
export interface VariantATree {
  [key: string]: TreeValue;
}

export interface AnalyzeOptions {
  /** Also return the per-frame values (the analysis frames file). */
  frames?: boolean;
  /**
   * Loudness measured on the file's own channels (fileLoudness); without it, loudness is measured on the
   * mono signal, which reads up to 3 LU low for stereo material.
   */
  loudness?: import('./loudness.ts').LoudnessResult;
  /**
   * Beat tracker: `earshot` (default) is ours (beat-tracker.ts, in this thread); `essentia` is essentia.js's
   * RhythmExtractor2013 (degara) in a worker thread, kept as a reference backend.
   */
  rhythm?: 'earshot' | 'essentia';
  /** The essentia.js tracker `rhythm: 'essentia'` runs on (default: `defaultEssentiaBeatTracker()`). */
  essentia?: import('./essentia-client.ts').EssentiaBeatTracker;
  /**
   * Time every group as process CPU, so the per-group figures are CPU milliseconds (the benchmark uses it);
   * with `rhythm: 'essentia'` it also waits for the worker first, forgoing the overlap of the two threads.
   */
  profile?: boolean;
}

/** Milliseconds per descriptor group: wall time of each (CPU-bound) group, or process CPU with `profile`. */
export type GroupTimings = Record<string, number>;
