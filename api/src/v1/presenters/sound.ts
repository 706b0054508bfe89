import type { SoundRecord } from '@earshot/catalogue';
import { fileUrl } from '../../application/file-names.ts';
import { v1Ref, v1Timestamp, v1UserLink } from './links.ts';

/**
 * The version 1 sound record, from the same catalogue row version 2 serializes. Lists show the
 * reduced (collection) record; the sound resource the full one. `fields` picks names from the full
 * record, unknown names skipped, as the original did.
 */
export type V1Sound = Record<string, unknown>;

export type V1SoundKind = 'collection' | 'full';

const isGeotagged = (s: SoundRecord) => s.geotag_lat !== null && s.geotag_lon !== null;

/** A field's value; undefined leaves the field out (`pack` outside a pack, `geotag` without one). */
type Getter = (s: SoundRecord, origin: string) => unknown;

/**
 * Every field of the full record, in its order; the collection record is its first part. One table,
 * so a `fields` selection computes only the fields it names (as version 2's serializer does),
 * rather than the whole record and then a pick.
 */
const GETTERS = new Map<string, Getter>([
  ['id', (s) => s.id],
  ['type', (s) => s.type ?? ''],
  ['duration', (s) => s.duration ?? 0],
  ['original_filename', (s) => s.name],
  ['user', (s, o) => v1UserLink(o, s.username)],
  ['tags', (s) => s.tags],
  ['ref', (s, o) => v1Ref(o, `sounds/${s.id}/`)],
  ['url', (s, o) => `${o}/people/${encodeURIComponent(s.username)}/sounds/${s.id}/`],
  ['serve', (s, o) => v1Ref(o, `sounds/${s.id}/serve/`)],
  ['similarity', (s, o) => v1Ref(o, `sounds/${s.id}/similar/`)],
  ['preview-hq-mp3', (s, o) => fileUrl(o, s.id, 'preview-hq-mp3')],
  ['preview-lq-mp3', (s, o) => fileUrl(o, s.id, 'preview-lq-mp3')],
  ['preview-hq-ogg', (s, o) => fileUrl(o, s.id, 'preview-hq-ogg')],
  ['preview-lq-ogg', (s, o) => fileUrl(o, s.id, 'preview-lq-ogg')],
  ['waveform_m', (s, o) => fileUrl(o, s.id, 'waveform_m')],
  ['waveform_l', (s, o) => fileUrl(o, s.id, 'waveform_l')],
  ['spectral_m', (s, o) => fileUrl(o, s.id, 'spectral_m')],
  ['spectral_l', (s, o) => fileUrl(o, s.id, 'spectral_l')],
  // The contract names it `analysis`; the original service's records said `analysis_stats`,
  // which older clients read: both point at the same resource.
  ['analysis', (s, o) => v1Ref(o, `sounds/${s.id}/analysis/`)],
  ['analysis_stats', (s, o) => v1Ref(o, `sounds/${s.id}/analysis/`)],
  ['analysis_frames', (s, o) => fileUrl(o, s.id, 'analysis_frames')],
  ['pack', (s, o) => (s.pack_id === null ? undefined : v1Ref(o, `packs/${s.pack_id}/`))],
  // The full record only, from here on.
  ['num_downloads', (s) => s.num_downloads],
  ['channels', (s) => s.channels ?? 0],
  ['samplerate', (s) => s.samplerate ?? 0],
  ['num_comments', (s) => s.num_comments],
  ['num_ratings', (s) => s.num_ratings],
  ['filesize', (s) => Number(s.filesize ?? 0)],
  ['description', (s) => s.description],
  ['bitdepth', (s) => s.bitdepth ?? 0],
  ['bitrate', (s) => s.bitrate ?? 0],
  ['created', (s) => v1Timestamp(s.created)],
  ['avg_rating', (s) => s.avg_rating],
  ['license', (s) => s.license],
  ['geotag', (s) => (isGeotagged(s) ? { lat: s.geotag_lat, lon: s.geotag_lon } : undefined)],
]);

const FULL_FIELDS = [...GETTERS.keys()];
const COLLECTION_FIELDS = FULL_FIELDS.slice(0, FULL_FIELDS.indexOf('pack') + 1);

/**
 * Shapes one sound: the collection (list) or full record, or, with `fields`, the named fields of
 * the full record in the order asked, unknown names skipped.
 */
export function serializeV1Sound(
  sound: SoundRecord,
  origin: string,
  kind: V1SoundKind,
  fields?: readonly string[],
): V1Sound {
  const names = fields ?? (kind === 'full' ? FULL_FIELDS : COLLECTION_FIELDS);
  const out: V1Sound = {};
  for (const name of names) {
    const value = GETTERS.get(name)?.(sound, origin);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** `fields` as a list of names; absent or blank means the default record. */
export function readV1Fields(fields: string | undefined): string[] | undefined {
  const names = (fields ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  return names.length > 0 ? names : undefined;
}

/** The `geotag` object geotag search adds to each sound. */
export function v1Geotag(s: SoundRecord): { lat: number; lon: number } | undefined {
  return isGeotagged(s) ? { lat: s.geotag_lat as number, lon: s.geotag_lon as number } : undefined;
}
