import { describe, expect, it } from 'vitest';
import {
  bstNames,
  cleanTags,
  hasDescription,
  parseGeotag,
  validateDescription,
} from './description-fields.ts';

// The one validator of upload, describe, edit and the import sidecar (API.md "Upload parameters",
// UPSTREAM-FACTS.md §5 and §10).

describe('description fields', () => {
  it('cleans tags as upstream: other characters split tags, dashes collapse, lower case, no repeats', () => {
    expect(cleanTags('Field-Recording rain,wind  RAIN --x-- a--b')).toEqual([
      'field-recording',
      'rain',
      'wind',
      'x',
      'a-b',
    ]);
    expect(cleanTags(['Field Recording', 'rain!'])).toEqual(['field-recording', 'rain']);
  });

  it('reads bst_category as a subcategory code only', () => {
    expect(bstNames('fx-a')).toEqual({ category: 'Sound effects', subcategory: 'Animals' });
    expect(bstNames('m-other')).toEqual({ category: 'Music', subcategory: 'Other' });
    for (const bad of ['fx', 'fx-zz', 'xx-a', 'fx-a-b', '']) expect(bstNames(bad)).toBeUndefined();
  });

  it('parses geotags as lat,lon,zoom with upstream’s bounds', () => {
    expect(parseGeotag('41.38, 2.17 ,11')).toEqual({ lat: 41.38, lon: 2.17, zoom: 11 });
    expect(parseGeotag('-90,180,20')).toEqual({ lat: -90, lon: 180, zoom: 20 });
    expect(parseGeotag('41.38,2.17')).toMatch(/^Geotag should have the format/);
    expect(parseGeotag('41.38,2.17,12.5')).toMatch(/^Geotag should have the format/);
    expect(parseGeotag('1e400,2,12')).toBe('Latitude must be in the range [-90,90].');
    expect(parseGeotag('10,-180.5,12')).toBe('Longitude must be in the range [-180,180].');
    expect(parseGeotag('10,10,10')).toBe('Zoom must be at least 11.');
  });

  it('an upload has a description when any field but bst_category is given', () => {
    expect(hasDescription({})).toBe(false);
    expect(hasDescription({ bst_category: 'fx-a' })).toBe(false);
    expect(hasDescription({ pack: 'P' })).toBe(true);
  });

  it('describe requires four fields; edit and import require none; import has no tag minimum', () => {
    expect(() => validateDescription({ name: 'x' }, 'describe')).toThrow(
      expect.objectContaining({
        fields: {
          bst_category: ['This field is required.'],
          tags: ['This field is required.'],
          description: ['This field is required.'],
          license: ['This field is required.'],
        },
      }),
    );
    expect(validateDescription({}, 'edit')).toEqual({});
    expect(validateDescription({ tags: 'one' }, 'import')).toEqual({ tags: ['one'] });
    expect(() => validateDescription({ tags: 'one two' }, 'edit')).toThrow(
      expect.objectContaining({ fields: { tags: ['You should add at least 3 tags...'] } }),
    );
    expect(validateDescription({ pack: '', geotag: '' }, 'edit')).toEqual({ packName: null, geotag: null });
    expect(validateDescription({ pack: '', geotag: '' }, 'import')).toEqual({});
    expect(
      validateDescription(
        {
          bst_category: 'ss-u',
          tags: 'a b c',
          description: ' d ',
          license: 'attribution noncommercial',
          name: '  ',
        },
        'describe',
      ),
    ).toEqual({
      category: 'Soundscapes',
      subcategory: 'Urban',
      tags: ['a', 'b', 'c'],
      description: 'd',
      license: 'Attribution NonCommercial',
    });
  });
});
