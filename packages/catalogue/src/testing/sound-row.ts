import type { SoundRecord } from '../repositories/records.ts';

/**
 * One sound as the catalogue answers it (every column filled with plain values), for tests of what
 * is made of a record; `over` sets the columns a test is about.
 */
export function soundRowFixture(over: Partial<SoundRecord> = {}): SoundRecord {
  return {
    id: 7,
    user_id: 3,
    name: 'rain on tin.wav',
    tags: ['rain', 'roof'],
    description: 'Rain.',
    category: null,
    subcategory: null,
    category_code: null,
    category_is_user_provided: false,
    geotag_lat: null,
    geotag_lon: null,
    created: new Date('2026-01-02T03:04:05.678Z'),
    license: 'Creative Commons 0',
    type: 'wav',
    channels: 2,
    filesize: 1000,
    bitrate: 1411,
    bitdepth: 16,
    duration: 1.5,
    samplerate: 44100,
    md5: null,
    is_remix: false,
    was_remixed: false,
    is_explicit: false,
    pack_id: null,
    num_downloads: 4,
    avg_rating: 3.5,
    num_ratings: 2,
    num_comments: 1,
    username: 'ann b',
    pack_name: null,
    gen_ai_preference: 'no-additional-preferences',
    similarity_ready: true,
    analyzed: true,
    ...over,
  };
}
