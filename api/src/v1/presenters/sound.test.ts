import { soundRowFixture } from '@earshot/catalogue/testing';
import { describe, expect, it } from 'vitest';
import { serializeV1Sound } from './sound.ts';

const record = soundRowFixture;

const ORIGIN = 'http://h:1';

describe('the version 1 sound record', () => {
  it('lists the collection fields, then the full ones; pack and geotag only when present', () => {
    const collection = serializeV1Sound(record(), ORIGIN, 'collection');
    expect(Object.keys(collection)).toEqual([
      'id',
      'type',
      'duration',
      'original_filename',
      'user',
      'tags',
      'ref',
      'url',
      'serve',
      'similarity',
      'preview-hq-mp3',
      'preview-lq-mp3',
      'preview-hq-ogg',
      'preview-lq-ogg',
      'waveform_m',
      'waveform_l',
      'spectral_m',
      'spectral_l',
      'analysis',
      'analysis_stats',
      'analysis_frames',
    ]);
    expect(collection.user).toEqual({
      username: 'ann b',
      url: `${ORIGIN}/people/ann%20b/`,
      ref: `${ORIGIN}/api/people/ann%20b/`,
    });
    const full = serializeV1Sound(record({ pack_id: 9, geotag_lat: 1.5, geotag_lon: -2 }), ORIGIN, 'full');
    expect(full.pack).toBe(`${ORIGIN}/api/packs/9/`);
    expect(full.geotag).toEqual({ lat: 1.5, lon: -2 });
    expect(full.created).toBe('2026-01-02 03:04:05');
    expect(full.filesize).toBe(1000);
    expect(Object.keys(full).slice(-3)).toEqual(['avg_rating', 'license', 'geotag']);
  });

  it('with fields, gives exactly the named fields of the full record in the order asked', () => {
    const picked = serializeV1Sound(record(), ORIGIN, 'collection', [
      'created',
      'id',
      'nonsense',
      'toString',
      '__proto__',
      'pack',
      'geotag',
      'user',
    ]);
    expect(Object.keys(picked)).toEqual(['created', 'id', 'user']);
    expect(JSON.parse(JSON.stringify(picked))).toEqual({
      created: '2026-01-02 03:04:05',
      id: 7,
      user: { username: 'ann b', url: `${ORIGIN}/people/ann%20b/`, ref: `${ORIGIN}/api/people/ann%20b/` },
    });
  });

  it('selects any field of the full record with the value the full record has', () => {
    const sound = record({ pack_id: 2, geotag_lat: 0, geotag_lon: 0 });
    const full = serializeV1Sound(sound, ORIGIN, 'full');
    for (const name of Object.keys(full))
      expect(serializeV1Sound(sound, ORIGIN, 'collection', [name])).toEqual({ [name]: full[name] });
  });
});
