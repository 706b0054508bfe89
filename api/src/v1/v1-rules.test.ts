import { describe, expect, it } from 'vitest';
import { pickV1Analysis, recommendedSubset } from '../application/v1/analysis-path.ts';
import { legacyDescriptorNames } from '../application/v1/legacy-search.ts';
import { readV1Page } from '../application/v1/paging.ts';
import { v1SoundPage } from './presenters/sound-page.ts';

describe('version 1 content-search names', () => {
  it('drops the leading dot of descriptor names and spells sharp as # in quoted values', () => {
    expect(legacyDescriptorNames('.lowlevel.pitch.mean:220 .lowlevel.mfcc.mean:1,2,3')).toBe(
      'lowlevel.pitch.mean:220 lowlevel.mfcc.mean:1,2,3',
    );
    expect(
      legacyDescriptorNames('(.tonal.key_key:"Csharp" OR .tonal.key_key:"A") AND .rhythm.bpm:[90 TO 100]'),
    ).toBe('(tonal.key_key:"C#" OR tonal.key_key:"A") AND rhythm.bpm:[90 TO 100]');
    // Numbers with a leading dot are values, not names.
    expect(legacyDescriptorNames('.lowlevel.pitch.mean:[.5 TO 1]')).toBe('lowlevel.pitch.mean:[.5 TO 1]');
  });
});

describe('version 1 analysis paths', () => {
  const tree = {
    lowlevel: { pitch: { mean: 440, var: 3 }, spectral_flatness_db: { mean: 0.2 } },
    rhythm: { bpm: 120, onset_rate: 2 },
  };
  it('keeps only the recommended descriptors unless all', () => {
    expect(recommendedSubset(tree)).toEqual({ lowlevel: { pitch: { mean: 440 } }, rhythm: { bpm: 120 } });
    expect(pickV1Analysis(tree, '', true)).toEqual(tree);
  });
  it('follows slash paths, trailing slash or not; undefined when they name nothing', () => {
    expect(pickV1Analysis(tree, 'lowlevel/pitch/mean/', false)).toBe(440);
    expect(pickV1Analysis(tree, 'lowlevel/pitch/var', false)).toBeUndefined();
    expect(pickV1Analysis(tree, 'lowlevel/pitch/var', true)).toBe(3);
    expect(pickV1Analysis(tree, 'rhythm/bpm/deeper', true)).toBeUndefined();
    expect(pickV1Analysis(tree, 'toString', true)).toBeUndefined();
  });
});

describe('version 1 paging', () => {
  it('reads p leniently and sounds_per_page strictly, capped at 100', () => {
    expect(readV1Page({})).toEqual({ p: 1, perPage: 30 });
    expect(readV1Page({ p: '0', sounds_per_page: '500' })).toEqual({ p: 1, perPage: 100 });
    expect(readV1Page({ p: 'two' }).p).toBe(1);
    expect(() => readV1Page({ sounds_per_page: '0' })).toThrow(/sounds_per_page/);
    expect(() => readV1Page({ sounds_per_page: '1.5' })).toThrow(/sounds_per_page/);
  });
  it('leaves previous and next out rather than null, and gives none past the end', () => {
    const links = {
      origin: 'http://h',
      path: '/api/sounds/search/',
      query: { q: 'a', p: '2', api_key: 'k' },
    };
    const page = (p: number) => v1SoundPage({ links, page: { p, perPage: 10 } }, 25, []);
    expect(page(1)).toEqual({
      sounds: [],
      num_results: 25,
      num_pages: 3,
      next: 'http://h/api/sounds/search/?q=a&api_key=k&p=2',
    });
    expect(page(3)).toEqual({
      sounds: [],
      num_results: 25,
      num_pages: 3,
      previous: 'http://h/api/sounds/search/?q=a&api_key=k&p=2',
    });
    expect(page(4)).toEqual({ sounds: [], num_results: 25, num_pages: 3 });
  });
});
