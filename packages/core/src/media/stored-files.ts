/**
 * The files the pipeline keeps for a sound besides its original, by kind: the key its path has in
 * the catalogue's `media_paths`, the name it is written under, and the name it is served under
 * (`/media/sounds/<id>/<served>`, the contract's, which is why the analysis files are served with
 * dashes). Writers and readers take kinds and names from here: a kind spelled one way by the
 * pipeline and another by the file resource once answered 404 for every sound's statistics
 * (migration 20261123010000). Kinds without `served` are kept but not served.
 */
export const STORED_FILES = {
  'preview-hq-mp3': { file: 'preview-hq.mp3', served: 'preview-hq.mp3' },
  'preview-lq-mp3': { file: 'preview-lq.mp3', served: 'preview-lq.mp3' },
  'preview-hq-ogg': { file: 'preview-hq.ogg', served: 'preview-hq.ogg' },
  'preview-lq-ogg': { file: 'preview-lq.ogg', served: 'preview-lq.ogg' },
  waveform_m: { file: 'waveform_m.png', served: 'waveform_m.png' },
  waveform_l: { file: 'waveform_l.png', served: 'waveform_l.png' },
  spectral_m: { file: 'spectral_m.jpg', served: 'spectral_m.jpg' },
  spectral_l: { file: 'spectral_l.jpg', served: 'spectral_l.jpg' },
  /** Per-frame values (Freesound's analysis_frames), format in frames-file.ts. */
  analysis_frames: { file: 'analysis_frames.json', served: 'analysis-frames.json' },
  /** The variant-A tree with statistics (Freesound's analysis_stats). */
  analysis_stats: { file: 'analysis_stats.json', served: 'analysis-stats.json' },
  /** The variant-B dictionary (the consolidated content descriptors); the API reads the catalogue's copy. */
  analysis_descriptors: { file: 'descriptors.json' },
  /** Min/max pairs in audiowaveform's JSON format, for the sound page's interactive waveform. */
  peaks: { file: 'peaks.json', served: 'peaks.json' },
} as const satisfies Record<string, { file: string; served?: string }>;

export type StoredFileKind = keyof typeof STORED_FILES;

/** The kinds the API serves. */
export type ServedFileKind = {
  [K in StoredFileKind]: (typeof STORED_FILES)[K] extends { served: string } ? K : never;
}[StoredFileKind];

/** The served kinds' public names, in the table's order. */
export const SERVED_FILE_NAMES = Object.fromEntries(
  Object.entries(STORED_FILES).flatMap(([kind, names]) => ('served' in names ? [[kind, names.served]] : [])),
) as Readonly<Record<ServedFileKind, string>>;
