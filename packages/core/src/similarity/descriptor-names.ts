import { UnknownDescriptorError } from './errors.ts';

/**
 * Flat variant-B names (API.md "Content descriptors as sound fields") whose value is one variant-A
 * statistic (rounded), mapped to that dotted name, so a target or a table row can use either naming
 * and land in the same column. Every other B name is a column under its own name, filled from the
 * consolidated record: those without an A counterpart (the AudioCommons timbral models, note_*,
 * tonality_confidence, start_time), and those whose B value is not the A statistic of the same
 * idea: `bpm` (the loop's tempo for a loop, rounded), `bpm_confidence` (another scale). `pitch`,
 * `pitch_min`, `pitch_max`, `pitch_var` and `duration_effective` are the A statistics since issue 37
 * but stay columns of their own, so analyses stored before it keep answering under those names. A B
 * name means the B value everywhere: in a target as in a filter or a field.
 */
const VARIANT_B_TO_A: Readonly<Record<string, string>> = {
  amplitude_peak_ratio: 'sfx.max_to_total',
  beat_count: 'rhythm.beats_count',
  beat_loudness: 'rhythm.beats_loudness.mean',
  decay_strength: 'sfx.strongdecay',
  dissonance: 'lowlevel.dissonance.mean',
  dynamic_range: 'lowlevel.loudness_ebu128.loudness_range',
  hpcp: 'tonal.hpcp.mean',
  hpcp_var: 'tonal.hpcp.var',
  hpcp_crest: 'tonal.hpcp_crest.mean',
  hpcp_entropy: 'tonal.hpcp_entropy.mean',
  inharmonicity: 'sfx.inharmonicity.mean',
  log_attack_time: 'sfx.logattacktime',
  loudness: 'lowlevel.loudness_ebu128.integrated',
  mfcc: 'lowlevel.mfcc.mean',
  mfcc_var: 'lowlevel.mfcc.var',
  onset_count: 'rhythm.onset_count',
  pitch_confidence: 'lowlevel.pitch_instantaneous_confidence.mean',
  pitch_salience: 'lowlevel.pitch_salience.mean',
  silence_rate: 'lowlevel.silence_rate_30dB.mean',
  spectral_centroid: 'lowlevel.spectral_centroid.mean',
  spectral_complexity: 'lowlevel.spectral_complexity.mean',
  spectral_crest: 'lowlevel.spectral_crest.mean',
  spectral_energy: 'lowlevel.spectral_energy.mean',
  spectral_entropy: 'lowlevel.spectral_entropy.mean',
  spectral_flatness: 'lowlevel.spectral_flatness_db.mean',
  spectral_rolloff: 'lowlevel.spectral_rolloff.mean',
  spectral_skewness: 'lowlevel.spectral_skewness.mean',
  spectral_spread: 'lowlevel.spectral_spread.mean',
  temporal_centroid: 'sfx.temporal_centroid',
  temporal_centroid_ratio: 'sfx.tc_to_total',
  temporal_decrease: 'sfx.temporal_decrease',
  temporal_skewness: 'sfx.temporal_skewness',
  temporal_spread: 'sfx.temporal_spread',
  tristimulus: 'sfx.tristimulus.mean',
  zero_crossing_rate: 'lowlevel.zerocrossingrate.mean',
};

/** Variant-A lists whose length varies from sound to sound: not usable as columns. */
export const VARIABLE_LENGTH_DESCRIPTORS: ReadonlySet<string> = new Set([
  'rhythm.beats_position',
  'rhythm.bpm_intervals',
  'rhythm.onset_times',
  'beat_times',
  'onset_times',
  'chord_progression',
]);

/** Whether a variant-B name is its own column (not an alias of a variant-A statistic). */
export function isConsolidatedColumn(name: string): boolean {
  return !name.includes('.') && VARIANT_B_TO_A[name] === undefined;
}

/** The column name for a descriptor: variant-B aliases become dotted names, a leading dot is dropped. */
export function canonicalDescriptorName(name: string): string {
  const bare = name.startsWith('.') ? name.slice(1) : name;
  return VARIANT_B_TO_A[bare] ?? bare;
}

export interface DescriptorReference {
  /** Canonical name, without any `[i]`. */
  name: string;
  /** The dimension addressed with `name[i]`, if any. */
  index?: number;
  /** As the caller wrote it, for error messages. */
  written: string;
}

const REFERENCE = /^\.?([A-Za-z_][\w.]*?)(?:\[(\d+)\])?$/;

/** Parses `lowlevel.mfcc.mean[2]`, `.lowlevel.pitch.mean`, `spectral_centroid`, `mfcc[0]`. */
export function parseDescriptorReference(written: string): DescriptorReference {
  const match = REFERENCE.exec(written.trim());
  if (!match)
    throw new UnknownDescriptorError(
      written,
      'expected a name like lowlevel.mfcc.mean or lowlevel.mfcc.mean[2]',
    );
  const name = canonicalDescriptorName(match[1]);
  return match[2] === undefined ? { name, written } : { name, index: Number(match[2]), written };
}
