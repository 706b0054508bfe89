import { describe, expect, it } from 'vitest';
import { BROAD_SOUND_TAXONOMY, categoryCode } from './taxonomy.ts';

describe('categoryCode', () => {
  it('joins the category prefix and the subcategory suffix with a dash', () => {
    expect(categoryCode('Sound effects', 'Animals')).toBe('fx-a');
    expect(categoryCode('Instrument samples', 'Percussion')).toBe('is-p');
    expect(categoryCode('Soundscapes', 'Synthetic / Artificial')).toBe('ss-s');
  });
  it('tells repeated subcategory names apart by their category', () => {
    expect(categoryCode('Music', 'Other')).toBe('m-other');
    expect(categoryCode('Speech', 'Other')).toBe('sp-other');
    expect(categoryCode('Speech', 'Processed / Synthetic')).toBe('sp-p');
    expect(categoryCode('Instrument samples', 'Piano / Keyboard instruments')).toBe('is-k');
  });
  it('is the bare prefix when only the category is known', () => {
    expect(categoryCode('Music', null)).toBe('m');
    expect(categoryCode('Music', undefined)).toBe('m');
    expect(categoryCode('Music', 'Animals')).toBe('m');
  });
  it('is null without a taxonomy category; names match exactly', () => {
    expect(categoryCode(null, null)).toBeNull();
    expect(categoryCode(undefined, 'Animals')).toBeNull();
    expect(categoryCode('sound effects', 'Animals')).toBeNull();
    expect(categoryCode('fx', 'a')).toBeNull();
  });
  it('gives every subcategory of the taxonomy a distinct code', () => {
    const codes = BROAD_SOUND_TAXONOMY.flatMap((c) =>
      c.subcategories.map((s) => categoryCode(c.name, s.name)),
    );
    expect(codes).toHaveLength(28);
    expect(new Set(codes).size).toBe(28);
    for (const code of codes) expect(code).toMatch(/^[a-z]+-[a-z]+$/);
  });
});
