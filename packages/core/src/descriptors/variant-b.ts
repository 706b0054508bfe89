import { midiToNoteName } from '@earshot/common/notes';
import { frequencyToMidi } from './pitch.ts';
import type { ScalarStats, VectorStats } from './statistics.ts';
import { finite } from './statistics.ts';
import type { TimbralScores } from './timbral.ts';
import type { VariantATree, VariantB } from './types.ts';

/** Values variant B needs that the variant-A tree does not hold. */
export interface VariantBExtras {
  timbral: TimbralScores;
  reverbness: boolean;
  singleEvent: boolean;
}

const round3 = (x: number): number => Math.round(finite(x) * 1000) / 1000;

function node(tree: VariantATree, path: string): unknown {
  let cur: unknown = tree;
  for (const part of path.split('.')) cur = (cur as Record<string, unknown>)[part];
  return cur;
}
const num = (tree: VariantATree, path: string): number => finite(node(tree, path) as number);
const statistic = (tree: VariantATree, path: string, name: keyof ScalarStats): number =>
  finite((node(tree, path) as ScalarStats)[name]);
const mean = (tree: VariantATree, path: string): number => statistic(tree, path, 'mean');

/**
 * Freesound converts the reference's first sounding frame (StartStopSilence on the 2048/1024 frames) to
 * seconds with the frame size, not the hop: start_time = sound_start_frame × 2048 / 44100.
 */
const START_FRAME_SECONDS = 2048 / 44100;
const meanVector = (tree: VariantATree, path: string): number[] =>
  (node(tree, path) as VectorStats).mean.map(round3);

/** ac-audio-extractor's loop rule, as Freesound serves `loopable`: the loop confidence above 0.95. */
export const isLoop = (bpmLoopConfidence: number): boolean => bpmLoopConfidence > 0.95;

/**
 * A loop's tempo: the loop estimate's, in the beat tracker's octave. Freesound serves the estimate as it
 * is, and Percival's estimator often lands on half or twice the tempo (a 60 BPM click loop reads 120,
 * a 170 BPM drum loop 85); its whole-BPM precision is kept, the octave nearest the tracker's tempo taken.
 */
function loopTempo(loopBpm: number, trackerBpm: number): number {
  if (!(trackerBpm > 0)) return loopBpm;
  const distance = (bpm: number) => Math.abs(Math.log2(bpm / trackerBpm));
  let best = loopBpm;
  for (const octave of [loopBpm / 2, loopBpm * 2]) if (distance(octave) < distance(best)) best = octave;
  return best;
}

/**
 * Consolidates the variant-A tree into Freesound's flat variant-B dictionary (the mapping follows
 * Freesound's consolidated descriptors; floats rounded to 3 decimals like upstream).
 */
export function buildVariantB(tree: VariantATree, extras: VariantBExtras): VariantB {
  const bpmRaw = num(tree, 'rhythm.bpm');
  const bpmLoop = num(tree, 'rhythm.bpm_loop');
  const loopConfidence = num(tree, 'rhythm.bpm_loop_confidence');
  const loopable = isLoop(loopConfidence);
  const useLoop = loopable && bpmLoop > 0;
  const chords = node(tree, 'tonal.chords_progression') as string[];
  const onsetTimes = node(tree, 'rhythm.onset_times') as number[];
  const beats = node(tree, 'rhythm.beats_position') as number[];
  // The note of the reference pitch track's median, as ac-audio-extractor names it.
  const pitchMedian = statistic(tree, 'lowlevel.pitch', 'median');
  const midi = pitchMedian > 0 ? frequencyToMidi(pitchMedian) : 0;
  const t = extras.timbral;
  return {
    amplitude_peak_ratio: round3(num(tree, 'sfx.max_to_total')),
    beat_count: beats.length,
    beat_loudness: round3(mean(tree, 'rhythm.beats_loudness')),
    beat_times: beats.map(round3),
    boominess: round3(t.boominess),
    bpm: Math.round(useLoop ? loopTempo(bpmLoop, bpmRaw) : bpmRaw),
    bpm_confidence: round3(
      useLoop ? loopConfidence : Math.min(1, Math.max(0, num(tree, 'rhythm.bpm_confidence') / 5)),
    ),
    brightness: round3(t.brightness),
    chord_count: chords.length,
    chord_progression: chords,
    decay_strength: round3(num(tree, 'sfx.strongdecay')),
    depth: round3(t.depth),
    dissonance: round3(mean(tree, 'lowlevel.dissonance')),
    duration_effective: round3(num(tree, 'sfx.effective_duration')),
    dynamic_range: round3(num(tree, 'lowlevel.loudness_ebu128.loudness_range')),
    hardness: round3(t.hardness),
    hpcp: meanVector(tree, 'tonal.hpcp'),
    hpcp_crest: round3(mean(tree, 'tonal.hpcp_crest')),
    hpcp_entropy: round3(mean(tree, 'tonal.hpcp_entropy')),
    inharmonicity: round3(mean(tree, 'sfx.inharmonicity')),
    log_attack_time: round3(num(tree, 'sfx.logattacktime')),
    loopable,
    loudness: round3(num(tree, 'lowlevel.loudness_ebu128.integrated')),
    mfcc: meanVector(tree, 'lowlevel.mfcc'),
    note_confidence: round3(statistic(tree, 'lowlevel.pitch_instantaneous_confidence', 'median')),
    note_midi: midi,
    note_name: midi > 0 ? midiToNoteName(midi) : '',
    onset_count: onsetTimes.length,
    onset_times: onsetTimes.map(round3),
    pitch: round3(mean(tree, 'lowlevel.pitch')),
    pitch_max: round3(statistic(tree, 'lowlevel.pitch', 'max')),
    pitch_min: round3(statistic(tree, 'lowlevel.pitch', 'min')),
    pitch_salience: round3(mean(tree, 'lowlevel.pitch_salience')),
    pitch_var: round3(statistic(tree, 'lowlevel.pitch', 'var')),
    reverbness: extras.reverbness,
    roughness: round3(t.roughness),
    sharpness: round3(t.sharpness),
    silence_rate: round3(mean(tree, 'lowlevel.silence_rate_30dB')),
    single_event: extras.singleEvent,
    spectral_centroid: round3(mean(tree, 'lowlevel.spectral_centroid')),
    spectral_complexity: round3(mean(tree, 'lowlevel.spectral_complexity')),
    spectral_crest: round3(mean(tree, 'lowlevel.spectral_crest')),
    spectral_energy: round3(mean(tree, 'lowlevel.spectral_energy')),
    spectral_entropy: round3(mean(tree, 'lowlevel.spectral_entropy')),
    spectral_flatness: round3(mean(tree, 'lowlevel.spectral_flatness_db')),
    spectral_rolloff: round3(mean(tree, 'lowlevel.spectral_rolloff')),
    spectral_skewness: round3(mean(tree, 'lowlevel.spectral_skewness')),
    spectral_spread: round3(mean(tree, 'lowlevel.spectral_spread')),
    start_time: round3(num(tree, 'lowlevel.sound_start_frame') * START_FRAME_SECONDS),
    temporal_centroid: round3(num(tree, 'sfx.temporal_centroid')),
    temporal_centroid_ratio: round3(num(tree, 'sfx.tc_to_total')),
    temporal_decrease: round3(num(tree, 'sfx.temporal_decrease')),
    temporal_skewness: round3(num(tree, 'sfx.temporal_skewness')),
    temporal_spread: round3(num(tree, 'sfx.temporal_spread')),
    tonality: `${node(tree, 'tonal.key_key') as string} ${node(tree, 'tonal.key_scale') as string}`,
    tonality_confidence: round3(Math.min(1, Math.max(0, num(tree, 'tonal.key_strength')))),
    tristimulus: meanVector(tree, 'sfx.tristimulus'),
    warmth: round3(t.warmth),
    zero_crossing_rate: round3(mean(tree, 'lowlevel.zerocrossingrate')),
  };
}
