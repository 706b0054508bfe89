import { LICENSE_DEEDS } from '@earshot/catalogue';
import type { ListRequest } from '../../application/api-context.ts';
import type { SoundJson } from '../../v2/presenters/schemas.ts';
import { type FieldSelection, selectFields, type Variant } from '../../v2/presenters/sound-fields.ts';
import { durationInWords } from './sound-words.ts';

/**
 * What the reading pages ask of the API's use cases: the same calls the version 2 routes make,
 * with links relative to this site (origin ''), so a page's addresses never depend on the Host.
 */
const CARD_FIELDS = 'id,url,name,tags,username,license,duration,previews,images,pack_name,num_downloads';

export function cardSelection(variant: Variant): FieldSelection {
  return selectFields(CARD_FIELDS, { variant, kind: 'list', allowScore: false });
}

/** The descriptors the sound page puts in words (variant B selects them by name). */
const PAGE_DESCRIPTORS = [
  'bpm',
  'bpm_confidence',
  'tonality',
  'tonality_confidence',
  'loudness',
  'pitch',
  'note_name',
];

export function soundPageSelection(variant: Variant): FieldSelection {
  const all = selectFields('*', { variant, kind: 'instance', allowScore: false });
  return { fields: all.fields, descriptors: variant === 'B' ? PAGE_DESCRIPTORS : [] };
}

export function webListRequest(
  path: string,
  page: number,
  pageSize: number,
  selection: FieldSelection,
): ListRequest {
  return { links: { origin: '', path, query: {} }, page: { page, pageSize, style: 'search' }, selection };
}

/** A sound as a card on a page: the fields a template needs, already in words. */
export interface SoundCard {
  id: number;
  url: string;
  name: string;
  username: string;
  tags: string[];
  license: string;
  duration: string;
  preview: string;
  previewOgg: string;
  waveform: string;
}

export function toCard(sound: SoundJson): SoundCard {
  const s = sound as Record<string, unknown> & {
    previews?: Record<string, string>;
    images?: Record<string, string>;
  };
  return {
    id: Number(s.id),
    url: String(s.url ?? ''),
    name: String(s.name ?? ''),
    username: String(s.username ?? ''),
    tags: Array.isArray(s.tags) ? (s.tags as string[]) : [],
    license: String(s.license ?? ''),
    duration: typeof s.duration === 'number' ? durationInWords(s.duration) : '',
    preview: s.previews?.['preview-lq-mp3'] ?? '',
    previewOgg: s.previews?.['preview-lq-ogg'] ?? '',
    waveform: s.images?.waveform_m ?? '',
  };
}

export function toCards(results: ReadonlyArray<SoundJson | null>): SoundCard[] {
  return results.filter((s): s is SoundJson => s !== null).map(toCard);
}

/** The licence's deed, for the attribution line. */
export function licenseLink(license: string): string | undefined {
  if (license.startsWith('http')) return license;
  return (LICENSE_DEEDS as Readonly<Record<string, string | undefined>>)[license];
}
