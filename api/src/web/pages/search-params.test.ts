import { parseFilter } from '@earshot/catalogue';
import { describe, expect, it } from 'vitest';
import { readSearchPage, searchFilter, searchHref } from './search-params.ts';

describe("the search page's query string", () => {
  it('turns every facet into one clause of the API filter language, which parses', () => {
    const p = readSearchPage({
      q: ' kick ',
      tag: ['drum', 'drum', '808'],
      license: ['Attribution', 'Creative Commons 0', 'Stolen'],
      type: ['wav', 'exe'],
      pack: 'Drums "2"',
      duration: 'medium',
      key: 'A minor',
      bpm_min: '100',
      bpm_max: 'fast',
      loudness_max: '-12.5',
      sort: 'created_desc',
      page: '3',
    });
    expect(p.q).toBe('kick');
    expect(p.types).toEqual(['wav']);
    expect(p.page).toBe(3);
    const filter = searchFilter(p);
    expect(filter).toBe(
      'tag:"drum" tag:"808" (license:"Attribution" OR license:"Creative Commons 0") (type:"wav") ' +
        'pack:"Drums 2" duration:[1 TO 10] tonality:"A minor" bpm:[100 TO *] loudness:[* TO -12.5]',
    );
    expect(() => parseFilter(filter ?? '')).not.toThrow();
  });

  it('has no filter without facets, and drops bad pages and sorts', () => {
    const p = readSearchPage({ page: '-1', sort: 'random' });
    expect(searchFilter(p)).toBeUndefined();
    expect(p.page).toBe(1);
    expect(p.sort).toBe('');
  });

  it('writes links that keep the other facets and start again at page 1', () => {
    const p = readSearchPage({ q: 'rain', tag: 'field', page: '4' });
    expect(searchHref(p)).toBe('/search/?q=rain&tag=field');
    expect(searchHref(p, { page: 5 })).toBe('/search/?q=rain&tag=field&page=5');
    expect(searchHref(p, { tags: [] })).toBe('/search/?q=rain');
    expect(readSearchPage({})).toMatchObject({ q: '', tags: [] });
    expect(searchHref(readSearchPage({}))).toBe('/search/');
  });

  it('keeps a cursor only in the link that names it: any other change starts a new walk', () => {
    const p = readSearchPage({ q: 'rain', cursor: 'dzQyLjE1', page: '2' });
    expect(p).toMatchObject({ cursor: 'dzQyLjE1', page: 2 });
    expect(searchHref(p, { cursor: 'dzQyLjMw' })).toBe('/search/?q=rain&cursor=dzQyLjMw');
    expect(searchHref(p, { tags: ['field'] })).toBe('/search/?q=rain&tag=field');
    expect(readSearchPage({ cursor: '*' }).cursor).toBe('');
    expect(readSearchPage({ cursor: ['a', 'b'] }).cursor).toBe('');
  });
});
