/**
 * The filterable content descriptors of the contract (variant B, "Content descriptors as sound
 * fields"), each a typed, indexed column of `sound_descriptors` under its own name.
 * The first migration creates the columns from this list: changing it needs a new migration that
 * adds or drops the same columns, and the first one must then keep its own copy of the old list.
 */
export const DESCRIPTOR_COLUMNS = {
  float: [
    'amplitude_peak_ratio',
    'beat_loudness',
    'boominess',
    'bpm_confidence',
    'brightness',
    'decay_strength',
    'depth',
    'dissonance',
    'duration_effective',
    'dynamic_range',
    'hardness',
    'hpcp_crest',
    'hpcp_entropy',
    'inharmonicity',
    'log_attack_time',
    'loudness',
    'note_confidence',
    'pitch',
    'pitch_max',
    'pitch_min',
    'pitch_salience',
    'pitch_var',
    'roughness',
    'sharpness',
    'silence_rate',
    'spectral_centroid',
    'spectral_complexity',
    'spectral_crest',
    'spectral_energy',
    'spectral_entropy',
    'spectral_flatness',
    'spectral_rolloff',
    'spectral_skewness',
    'spectral_spread',
    'start_time',
    'temporal_centroid',
    'temporal_centroid_ratio',
    'temporal_decrease',
    'temporal_skewness',
    'temporal_spread',
    'tonality_confidence',
    'warmth',
    'zero_crossing_rate',
  ],
  int: ['beat_count', 'bpm', 'chord_count', 'note_midi', 'onset_count'],
  bool: ['loopable', 'reverbness', 'single_event'],
  string: ['note_name', 'tonality'],
} as const;

export type FloatDescriptor = (typeof DESCRIPTOR_COLUMNS.float)[number];
export type IntDescriptor = (typeof DESCRIPTOR_COLUMNS.int)[number];
export type BoolDescriptor = (typeof DESCRIPTOR_COLUMNS.bool)[number];
export type StringDescriptor = (typeof DESCRIPTOR_COLUMNS.string)[number];
export type DescriptorColumn = FloatDescriptor | IntDescriptor | BoolDescriptor | StringDescriptor;

/** Typed descriptor values as stored (absent = null). */
export type DescriptorValues = { [K in FloatDescriptor | IntDescriptor]?: number | null } & {
  [K in BoolDescriptor]?: boolean | null;
} & { [K in StringDescriptor]?: string | null };

export const ALL_DESCRIPTOR_COLUMNS: readonly DescriptorColumn[] = [
  ...DESCRIPTOR_COLUMNS.float,
  ...DESCRIPTOR_COLUMNS.int,
  ...DESCRIPTOR_COLUMNS.bool,
  ...DESCRIPTOR_COLUMNS.string,
];
