import { type SoundRecord as CatalogueSound, creditLine, type SoundRecordColumn } from '@earshot/catalogue';
import { soundPageUrl } from '@earshot/services';
import { fileUrl } from '../../application/file-names.ts';
import type { SoundRecord, Variant } from '../../application/records.ts';
import type { SoundJson } from './schemas.ts';
import { type FieldSelection, vectorField } from './sound-fields.ts';
import { v2Timestamp } from './timestamps.ts';

/**
 * The one reshape of a sound: the use case's record (the catalogue's row, with score, descriptors,
 * analysis beside it) to the contract's JSON, field by field, only the selected fields.
 */

export interface SoundContext {
  origin: string;
  variant: Variant;
  selection: FieldSelection;
}

/** `s`: the catalogue's row; `r`: the record it came in, for what the answer adds beside the row. */
type Getter = (s: CatalogueSound, ctx: SoundContext, r: SoundRecord) => unknown;

const api = (ctx: SoundContext, path: string) => `${ctx.origin}/apiv2/${path}`;

const soundPage = (s: CatalogueSound, c: SoundContext) => soundPageUrl(c.origin, s.username, s.id);

const isGeotagged = (s: CatalogueSound) => s.geotag_lat !== null && s.geotag_lon !== null;

const GETTERS = {
  id: (s) => s.id,
  url: (s, c) => soundPage(s, c),
  name: (s) => s.name,
  tags: (s) => s.tags,
  description: (s) => s.description,
  category: (s, c) =>
    c.variant === 'A' ? (s.category ? [s.category, s.subcategory ?? ''] : null) : s.category,
  subcategory: (s) => s.subcategory,
  category_code: (s) => s.category_code,
  category_is_user_provided: (s) => s.category_is_user_provided,
  geotag: (s) => (isGeotagged(s) ? `${s.geotag_lat} ${s.geotag_lon}` : null),
  is_geotagged: isGeotagged,
  created: (s) => v2Timestamp(s.created),
  license: (s) => s.license,
  gen_ai_preference: (s) => s.gen_ai_preference,
  type: (s) => s.type ?? '',
  channels: (s) => s.channels ?? 0,
  filesize: (s) => Number(s.filesize ?? 0),
  bitrate: (s) => s.bitrate ?? 0,
  bitdepth: (s) => s.bitdepth ?? 0,
  duration: (s) => s.duration ?? 0,
  samplerate: (s) => s.samplerate ?? 0,
  username: (s) => s.username,
  pack: (s, c) => (s.pack_id === null ? null : api(c, `packs/${s.pack_id}/`)),
  pack_name: (s) => s.pack_name,
  download: (s, c) => api(c, `sounds/${s.id}/download/`),
  bookmark: (s, c) => api(c, `sounds/${s.id}/bookmark/`),
  previews: (s, c) => ({
    'preview-hq-mp3': fileUrl(c.origin, s.id, 'preview-hq-mp3'),
    'preview-lq-mp3': fileUrl(c.origin, s.id, 'preview-lq-mp3'),
    'preview-hq-ogg': fileUrl(c.origin, s.id, 'preview-hq-ogg'),
    'preview-lq-ogg': fileUrl(c.origin, s.id, 'preview-lq-ogg'),
  }),
  images: (s, c) => ({
    waveform_m: fileUrl(c.origin, s.id, 'waveform_m'),
    waveform_l: fileUrl(c.origin, s.id, 'waveform_l'),
    spectral_m: fileUrl(c.origin, s.id, 'spectral_m'),
    spectral_l: fileUrl(c.origin, s.id, 'spectral_l'),
  }),
  num_downloads: (s) => s.num_downloads,
  avg_rating: (s) => s.avg_rating,
  num_ratings: (s) => s.num_ratings,
  rate: (s, c) => api(c, `sounds/${s.id}/rate/`),
  comments: (s, c) => api(c, `sounds/${s.id}/comments/`),
  num_comments: (s) => s.num_comments,
  comment: (s, c) => api(c, `sounds/${s.id}/comment/`),
  similar_sounds: (s, c) => (s.similarity_ready ? api(c, `sounds/${s.id}/similar/`) : null),
  analysis_files: (s, c) =>
    s.analyzed ? [fileUrl(c.origin, s.id, 'analysis_frames'), fileUrl(c.origin, s.id, 'analysis_stats')] : [],
  is_explicit: (s) => s.is_explicit,
  score: (_s, _c, r) => r.score ?? null,
  distance_to_target: (_s, _c, r) => r.distanceToTarget ?? null,
  is_remix: (s) => s.is_remix,
  was_remixed: (s) => s.was_remixed,
  md5: (s) => s.md5 ?? '',
  analysis: (_s, _c, r) => r.analysis ?? null,
  analysis_stats: (s, c) => (s.analyzed ? api(c, `sounds/${s.id}/analysis/`) : null),
  analysis_frames: (s, c) => (s.analyzed ? fileUrl(c.origin, s.id, 'analysis_frames') : null),
  ac_analysis: (_s, _c, r) => r.acAnalysis ?? null,
  attribution: (s, c) =>
    creditLine({ name: s.name, username: s.username, url: soundPage(s, c), license: s.license }),
} satisfies Record<string, Getter>;

type Field = keyof typeof GETTERS;

const analyzed: readonly SoundRecordColumn[] = ['analyzed'];

/**
 * The catalogue columns each field's getter reads besides `id` (which every read has); the record's
 * additions (score, descriptors, analysis) are read apart. A read for a few fields reads only
 * theirs (`soundColumns`). `analysis` and `ac_analysis` are read only for analyzed sounds.
 */
const FIELD_COLUMNS: Record<Field, readonly SoundRecordColumn[]> = {
  id: [],
  url: ['username'],
  name: ['name'],
  tags: ['tags'],
  description: ['description'],
  category: ['category', 'subcategory'],
  subcategory: ['subcategory'],
  category_code: ['category_code'],
  category_is_user_provided: ['category_is_user_provided'],
  geotag: ['geotag_lat', 'geotag_lon'],
  is_geotagged: ['geotag_lat', 'geotag_lon'],
  created: ['created'],
  license: ['license'],
  gen_ai_preference: ['gen_ai_preference'],
  type: ['type'],
  channels: ['channels'],
  filesize: ['filesize'],
  bitrate: ['bitrate'],
  bitdepth: ['bitdepth'],
  duration: ['duration'],
  samplerate: ['samplerate'],
  username: ['username'],
  pack: ['pack_id'],
  pack_name: ['pack_name'],
  download: [],
  bookmark: [],
  previews: [],
  images: [],
  num_downloads: ['num_downloads'],
  avg_rating: ['avg_rating'],
  num_ratings: ['num_ratings'],
  rate: [],
  comments: [],
  num_comments: ['num_comments'],
  comment: [],
  similar_sounds: ['similarity_ready'],
  analysis_files: analyzed,
  is_explicit: ['is_explicit'],
  score: [],
  distance_to_target: [],
  is_remix: ['is_remix'],
  was_remixed: ['was_remixed'],
  md5: ['md5'],
  analysis: analyzed,
  analysis_stats: analyzed,
  analysis_frames: analyzed,
  ac_analysis: analyzed,
  attribution: ['name', 'username', 'license'],
};

/** The catalogue columns a sound's row needs for the selected fields (`id` always comes). */
export function soundColumns(selection: FieldSelection): Set<SoundRecordColumn> {
  return new Set(selection.fields.flatMap((field) => FIELD_COLUMNS[field as Field]));
}

/** Shapes one sound for a response: exactly the selected fields, descriptors after them. */
export function serializeSound(record: SoundRecord, ctx: SoundContext): SoundJson {
  const out: Record<string, unknown> = {};
  const { sound } = record;
  for (const field of ctx.selection.fields) out[field] = GETTERS[field as Field](sound, ctx, record);
  for (const name of ctx.selection.descriptors) out[name] = record.descriptors?.[name] ?? null;
  for (const space of ctx.selection.vectors ?? []) out[vectorField(space)] = record.vectors?.[space] ?? null;
  return out;
}
