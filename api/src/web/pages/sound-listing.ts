import { LICENSE_DEEDS } from '@earshot/catalogue';
import type { ListRequest } from '../../application/api-context.ts';
import { fileUrl } from '../../application/file-names.ts';
import type { SoundReads, SoundRecord, Variant } from '../../application/records.ts';
import { soundPath, userPath } from './people.ts';
import { durationInWords } from './sound-words.ts';

/**
 * What the reading pages ask of the API's use cases (the same calls the version 2 routes make) and
 * the cards they make of the records. Addresses are this site's, relative, so a page's links never
 * depend on the Host.
 */

/** The descriptors the sound page puts in words (variant B reads them by name). */
const PAGE_DESCRIPTORS = [
  'bpm',
  'bpm_confidence',
  'tonality',
  'tonality_confidence',
  'loudness',
  'pitch',
  'note_name',
];

/** What the sound page reads beside the sound's row: variant A's analysis is not shown. */
export function soundPageReads(variant: Variant): SoundReads {
  return variant === 'B' ? { descriptors: PAGE_DESCRIPTORS } : {};
}

/** A page of search-style results (cards need nothing beside the rows). */
export function webListRequest(page: number, pageSize: number): ListRequest {
  return { page: { page, pageSize, style: 'search' } };
}

/** A sound as a card on a page: the fields a template needs, already in words. */
export interface SoundCard {
  id: number;
  url: string;
  name: string;
  username: string;
  /** The uploader's page. */
  userUrl: string;
  tags: string[];
  license: string;
  duration: string;
  preview: string;
  previewOgg: string;
  waveform: string;
}

export function toCard({ sound }: SoundRecord): SoundCard {
  return {
    id: sound.id,
    url: soundPath(sound.username, sound.id),
    name: sound.name,
    username: sound.username,
    userUrl: userPath(sound.username),
    tags: sound.tags,
    license: sound.license,
    // The API shows an unknown duration as 0, and so did the cards.
    duration: durationInWords(sound.duration ?? 0),
    preview: fileUrl('', sound.id, 'preview-lq-mp3'),
    previewOgg: fileUrl('', sound.id, 'preview-lq-ogg'),
    waveform: fileUrl('', sound.id, 'waveform_m'),
  };
}

export function toCards(sounds: readonly SoundRecord[]): SoundCard[] {
  return sounds.map(toCard);
}

/** The licence's deed, for the attribution line. */
export function licenseLink(license: string): string | undefined {
  if (license.startsWith('http')) return license;
  return (LICENSE_DEEDS as Readonly<Record<string, string | undefined>>)[license];
}
