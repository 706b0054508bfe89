import { DESCRIPTOR_COLUMNS } from '../schema/descriptors.ts';
import { GEN_AI_PREFERENCES } from '../schema/gen-ai-preference.ts';

/**
 * The filter-field registry: every name a `filter` (v2) or `f` (v1) may use, its value type and
 * where its value lives. The compiler turns a field into SQL from `type` + `column` alone, so a
 * schema rename is a one-line change here.
 */

export type FieldType =
  | 'text' // English-analyzed text: a word matches a stem, a quoted value a phrase
  | 'keyword' // one exact string (optionally case-insensitive)
  | 'tags' // the sound's tag list: case-insensitive whole-tag match
  | 'int'
  | 'float'
  | 'bool'
  | 'date'
  | 'geo'
  | 'pack_grouping'; // "<packid>_<packname>", the link target of grouped results

/**
 * Where a field's column lives: the search document, the descriptor row, the comments, or the
 * uploader's settings as they apply to the sound (`gen_ai_preference`).
 */
export type FieldSource = 'sound' | 'descriptor' | 'comments' | 'uploader';

export interface FieldDef {
  /** The canonical filter name. */
  readonly name: string;
  readonly type: FieldType;
  readonly source: FieldSource;
  /** Column in the search document (`source: 'sound'`) or the descriptor table. */
  readonly column: string;
  readonly caseInsensitive?: boolean;
  /** A keyword field with a closed set of values: any other value is an error, not an empty match. */
  readonly values?: readonly string[];
}

const sound = (name: string, type: FieldType, column = name, caseInsensitive = false): FieldDef => ({
  name,
  type,
  source: 'sound',
  column,
  caseInsensitive,
});

const SOUND_FIELDS: FieldDef[] = [
  sound('id', 'int'),
  sound('name', 'text'),
  sound('description', 'text'),
  sound('tag', 'tags', 'tags'),
  sound('category', 'keyword'),
  sound('subcategory', 'keyword'),
  sound('geotag', 'geo'),
  sound('is_geotagged', 'bool'),
  sound('created', 'date'),
  sound('license', 'keyword', 'license', true),
  sound('type', 'keyword', 'type', true),
  sound('channels', 'int'),
  sound('filesize', 'int'),
  sound('bitrate', 'float'),
  sound('bitdepth', 'int'),
  sound('duration', 'float'),
  sound('samplerate', 'int'),
  sound('username', 'keyword', 'username', true),
  sound('md5', 'keyword', 'md5', true),
  sound('is_remix', 'bool'),
  sound('was_remixed', 'bool'),
  sound('is_explicit', 'bool'),
  sound('pack', 'text', 'pack_name'),
  sound('pack_grouping', 'pack_grouping', 'pack_id'),
  sound('num_downloads', 'int'),
  sound('avg_rating', 'float'),
  sound('num_ratings', 'int'),
  sound('num_comments', 'int'),
  { name: 'comment', type: 'text', source: 'comments', column: 'comment' },
  {
    name: 'gen_ai_preference',
    type: 'keyword',
    source: 'uploader',
    column: 'gen_ai_preference',
    values: GEN_AI_PREFERENCES,
  },
];

/** Other spellings clients use: the v1 names, the contract's "is explicit" and "comments" count. */
const ALIASES: Record<string, string> = {
  original_filename: 'name',
  pack_tokenized: 'pack',
  comments: 'num_comments',
  'is explicit': 'is_explicit',
  tags: 'tag',
};

/** Variant A exposed the AudioCommons outputs as `ac_<key>` filters; they map onto the consolidated ones. */
const AUDIOCOMMONS_ALIASES: Record<string, string> = {
  ac_loudness: 'loudness',
  ac_dynamic_range: 'dynamic_range',
  ac_temporal_centroid: 'temporal_centroid',
  ac_log_attack_time: 'log_attack_time',
  ac_single_event: 'single_event',
  ac_tonality: 'tonality',
  ac_tonality_confidence: 'tonality_confidence',
  ac_loop: 'loopable',
  ac_tempo: 'bpm',
  ac_tempo_confidence: 'bpm_confidence',
  ac_note_midi: 'note_midi',
  ac_note_name: 'note_name',
  ac_note_confidence: 'note_confidence',
  ac_brightness: 'brightness',
  ac_depth: 'depth',
  ac_hardness: 'hardness',
  ac_roughness: 'roughness',
  ac_boominess: 'boominess',
  ac_warmth: 'warmth',
  ac_sharpness: 'sharpness',
  ac_reverb: 'reverbness',
};

const descriptor = (name: string, type: FieldType): FieldDef => ({
  name,
  type,
  source: 'descriptor',
  column: name,
});

// The contract's filterable descriptors are the store's typed descriptor columns, under the same names.
const DESCRIPTOR_FIELDS: FieldDef[] = [
  ...DESCRIPTOR_COLUMNS.float.map((n) => descriptor(n, 'float')),
  ...DESCRIPTOR_COLUMNS.int.map((n) => descriptor(n, 'int')),
  ...DESCRIPTOR_COLUMNS.bool.map((n) => descriptor(n, 'bool')),
  ...DESCRIPTOR_COLUMNS.string.map((n) => descriptor(n, 'keyword')),
];

const REGISTRY = new Map<string, FieldDef>();
for (const f of [...SOUND_FIELDS, ...DESCRIPTOR_FIELDS]) REGISTRY.set(f.name, f);
for (const [alias, target] of Object.entries({ ...ALIASES, ...AUDIOCOMMONS_ALIASES })) {
  REGISTRY.set(alias, REGISTRY.get(target)!);
}

/** Every accepted filter name (canonical names and aliases). */
export function filterFieldNames(): string[] {
  return [...REGISTRY.keys()];
}

/** The field a filter name denotes, or undefined when the name is unknown. */
export function lookupFilterField(name: string): FieldDef | undefined {
  return REGISTRY.get(name);
}

/** Up to `limit` known names closest to `name` (edit distance, then shared prefix), for error messages. */
export function closeMatches(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const lower = name.toLowerCase();
  const scored: { c: string; d: number }[] = [];
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase());
    const budget = Math.max(2, Math.floor(c.length / 3));
    if (d <= budget || (lower.length >= 3 && c.startsWith(lower))) scored.push({ c, d });
  }
  scored.sort((a, b) => a.d - b.d || a.c.localeCompare(b.c));
  return scored.slice(0, limit).map((s) => s.c);
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8) return 99;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}
