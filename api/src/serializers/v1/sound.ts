import type { SoundRecord } from '@earshot/catalogue';
import { fileUrl } from '../../files/file-names.ts';
import { v1Ref, v1Timestamp, v1UserLink } from './links.ts';

/**
 * The version 1 sound record, from the same catalogue row version 2 serializes. Lists show the
 * reduced (collection) record; the sound resource the full one. `fields` picks names from the full
 * record, unknown names skipped, as the original did.
 */
export type V1Sound = Record<string, unknown>;

export type V1SoundKind = 'collection' | 'full';

const isGeotagged = (s: SoundRecord) => s.geotag_lat !== null && s.geotag_lon !== null;

function links(s: SoundRecord, origin: string): V1Sound {
  const out: V1Sound = {
    ref: v1Ref(origin, `sounds/${s.id}/`),
    url: `${origin}/people/${encodeURIComponent(s.username)}/sounds/${s.id}/`,
    serve: v1Ref(origin, `sounds/${s.id}/serve/`),
    similarity: v1Ref(origin, `sounds/${s.id}/similar/`),
    'preview-hq-mp3': fileUrl(origin, s.id, 'preview-hq-mp3'),
    'preview-lq-mp3': fileUrl(origin, s.id, 'preview-lq-mp3'),
    'preview-hq-ogg': fileUrl(origin, s.id, 'preview-hq-ogg'),
    'preview-lq-ogg': fileUrl(origin, s.id, 'preview-lq-ogg'),
    waveform_m: fileUrl(origin, s.id, 'waveform_m'),
    waveform_l: fileUrl(origin, s.id, 'waveform_l'),
    spectral_m: fileUrl(origin, s.id, 'spectral_m'),
    spectral_l: fileUrl(origin, s.id, 'spectral_l'),
    // The contract names it `analysis`; the original service's records said `analysis_stats`,
    // which older clients read: both point at the same resource.
    analysis: v1Ref(origin, `sounds/${s.id}/analysis/`),
    analysis_stats: v1Ref(origin, `sounds/${s.id}/analysis/`),
    analysis_frames: fileUrl(origin, s.id, 'analysis_frames'),
  };
  if (s.pack_id !== null) out.pack = v1Ref(origin, `packs/${s.pack_id}/`);
  return out;
}

function collection(s: SoundRecord, origin: string): V1Sound {
  return {
    id: s.id,
    type: s.type ?? '',
    duration: s.duration ?? 0,
    original_filename: s.name,
    user: v1UserLink(origin, s.username),
    tags: s.tags,
    ...links(s, origin),
  };
}

function full(s: SoundRecord, origin: string): V1Sound {
  const out: V1Sound = {
    ...collection(s, origin),
    num_downloads: s.num_downloads,
    channels: s.channels ?? 0,
    samplerate: s.samplerate ?? 0,
    num_comments: s.num_comments,
    num_ratings: s.num_ratings,
    filesize: Number(s.filesize ?? 0),
    description: s.description,
    bitdepth: s.bitdepth ?? 0,
    bitrate: s.bitrate ?? 0,
    created: v1Timestamp(s.created),
    avg_rating: s.avg_rating,
    license: s.license,
  };
  if (isGeotagged(s)) out.geotag = { lat: s.geotag_lat, lon: s.geotag_lon };
  return out;
}

/** Shapes one sound; `fields` (comma-separated) selects from the full record. */
export function serializeV1Sound(
  sound: SoundRecord,
  origin: string,
  kind: V1SoundKind,
  fields?: readonly string[],
): V1Sound {
  if (!fields) return kind === 'full' ? full(sound, origin) : collection(sound, origin);
  const all = full(sound, origin);
  const out: V1Sound = {};
  for (const name of fields) if (name in all) out[name] = all[name];
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
