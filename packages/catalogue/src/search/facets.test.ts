import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { NO_CHANGE_FEED } from '../connection/change-feed.ts';
import { testBackends, useSearchCatalogue } from '../testing/index.ts';
import { loadSyntheticCatalogue, syntheticVocabulary } from '../testing/synthetic-catalogue.ts';
import { searchCondition, searchSounds } from './execute.ts';
import { databaseFacets } from './facet-statement.ts';
import {
  FACET_NAMES,
  type FacetName,
  type FacetRequest,
  type Facets,
  facetFilter,
  MAX_FACET_LIMIT,
} from './facets.ts';
import { LivePostingIndex } from './live-posting-index.ts';
import { LiveSearchIndex } from './live-search-index.ts';
import { byFrequency, FEW_VALUES, perSound, TOGETHER_FROM } from './posting-facets.ts';
import { type PostingIndexData, postingIndexAnswers } from './posting-index.ts';
import { loadPostingIndexSince, readDocuments } from './posting-index-load.ts';
import { type ClauseMemo, postingSearch } from './posting-search.ts';
import { prepareSearch, type SearchRequest } from './prepare.ts';

const postgresUrl = await testService('postgres');

const ALL: FacetRequest = { names: FACET_NAMES, limit: MAX_FACET_LIMIT };

/**
 * Facets on both paths (issue 36): each value's count is the count of the same search with that
 * value added as a filter, on searches the posting index answers and on searches only PostgreSQL
 * answers, and the index's facets equal the database's, before and after changes reach its overlay.
 */
describe.each(testBackends(postgresUrl))('facets of a text search on %s', (backend) => {
  const t = useSearchCatalogue(
    backend,
    postgresUrl,
    async (db) => {
      await loadSyntheticCatalogue(db, { sounds: 1200 });
      // The synthetic catalogue has no categories or bit depths: give some sounds of each.
      await sql`update sounds set category = (array['fx', 'music', 'speech'])[id % 3 + 1],
          subcategory = case when id % 5 = 0 then null else (array['a', 'b'])[id % 2 + 1] end,
          bitdepth = case when id % 7 = 0 then null else (array[16, 24, 32])[id % 3 + 1] end
        where id % 4 <> 0`.execute(db);
    },
    120_000,
  );
  const words = syntheticVocabulary(50_000);

  /** Searches the index answers, then ones only PostgreSQL answers (exclusions, other filters). */
  const indexSearches: SearchRequest[] = [
    { query: words[0] },
    { query: `"${words[0]} ${words[1]}"` },
    { query: `"${words[2]} ${words[0]}"`, groupByPack: true },
    { query: words[1], filter: 'duration:[0 TO 6]', sort: 'downloads_desc' },
    { query: `${words[0]} ${words[2]}` },
    { query: words[3], groupByPack: true },
    { query: words[4], filter: 'license:"Attribution" OR type:wav' },
  ];
  const databaseSearches: SearchRequest[] = [
    { query: '' },
    { query: `${words[0]} -${words[1]}` },
    { filter: 'samplerate:44100 channels:[1 TO 1]' },
    { query: words[2], filter: 'category:music' },
  ];

  const facetsOf = async (request: SearchRequest, facets: FacetRequest = ALL) =>
    (await searchSounds(t.catalogue, { ...request, facets })).facets as Facets;

  /** Each listed value's count is the count of the search with the value's filter added. */
  const checkCounts = async (request: SearchRequest, facets: Facets, perFacet = 4) => {
    let checked = 0;
    for (const name of Object.keys(facets) as FacetName[]) {
      for (const [value, count] of (facets[name] ?? []).slice(0, perFacet)) {
        const filter = request.filter
          ? `(${request.filter}) AND ${facetFilter(name, value)}`
          : facetFilter(name, value);
        const { count: filtered } = await searchSounds(t.catalogue, {
          ...request,
          groupByPack: false,
          filter,
          limit: 1,
        });
        expect(count, `${JSON.stringify(request)} ${name}=${value}`).toBe(filtered);
        checked++;
      }
    }
    return checked;
  };

  it('counts each value as the same search filtered by it, on the database path', async () => {
    let checked = 0;
    for (const request of [...indexSearches, ...databaseSearches]) {
      const facets = await facetsOf(request);
      expect(Object.keys(facets).sort()).toEqual([...FACET_NAMES].sort());
      checked += await checkCounts(request, facets);
    }
    expect(checked).toBeGreaterThan(150);
  }, 120_000);

  it('lists every value once, most frequent first, and cuts at the limit', async () => {
    const all = await facetsOf({ query: '' });
    const { count } = await searchSounds(t.catalogue, { query: '' });
    for (const name of ['license', 'type', 'category', 'channels', 'bitdepth'] as const) {
      const values = all[name] ?? [];
      const counts = values.map(([, n]) => n);
      expect(counts, name).toEqual([...counts].sort((a, b) => b - a));
      expect(new Set(values.map(([v]) => v)).size, name).toBe(values.length);
      // These facets have few values: every sound with one is counted once.
      const withValue = name === 'category' || name === 'bitdepth' ? count - 300 : count;
      expect(
        counts.reduce((a, b) => a + b, 0),
        name,
      ).toBeLessThanOrEqual(count);
      if (name === 'license' || name === 'type' || name === 'channels')
        expect(
          counts.reduce((a, b) => a + b, 0),
          name,
        ).toBe(withValue);
    }
    expect(all.bitdepth?.map(([v]) => typeof v)).toEqual(['number', 'number', 'number']);
    expect(all.license?.map(([v]) => v).sort()).toEqual([
      'Attribution',
      'Attribution NonCommercial',
      'Creative Commons 0',
    ]);
    const cut = await facetsOf({ query: '' }, { names: ['tags', 'username'], limit: 3 });
    expect(Object.keys(cut).sort()).toEqual(['tags', 'username']);
    expect(cut.tags).toEqual(all.tags?.slice(0, 3));
    expect(cut.username).toEqual(all.username?.slice(0, 3));
  });

  it("counts them in a search's own scan as the facet statement counts them, whatever the page or plan", async () => {
    const db = t.catalogue.db;
    // Searches that rank or group every match (their page's scan counts the facets), a page past
    // the last one, a query with more matches than a first scan ranks (FIRST_SCAN, 796 here: the
    // scan is cut short, and the facets come from ranking every match after it), and the ones
    // beside a page in another order.
    const requests: SearchRequest[] = [
      { query: `"${words[0]} ${words[1]}"` },
      { query: `"${words[0]} ${words[1]}"`, groupByPack: true },
      { query: `${words[0]} -${words[1]}` },
      { query: `${words[0]} -${words[1]}`, offset: 15 },
      { query: `"${words[0]} ${words[1]}"`, offset: 100_000 },
      { query: `${words[0]} -zzznothing` },
      { query: `zzznothing "${words[0]}"` },
      { query: words[2], filter: 'category:music', groupByPack: true },
      { query: '', sort: 'downloads_desc' },
      { query: words[1], sort: 'created_desc', filter: 'category:fx' },
    ];
    // The API runs phrases in the posting index, but in PostgreSQL until the index is built.
    for (const request of requests) {
      const search = prepareSearch({ ...request, facets: ALL });
      if (!request.query?.includes('"'))
        expect(postingIndexAnswers(search), JSON.stringify(request)).toBe(false);
      // Faceted first: a plan the search remembers would spare the cut scan.
      const faceted = await searchSounds(t.catalogue, search);
      const plain = await searchSounds(t.catalogue, request);
      const exact = await databaseFacets(db, searchCondition(search), ALL);
      expect(faceted.facets, JSON.stringify(request)).toEqual(exact.facets);
      expect(faceted.count, JSON.stringify(request)).toBe(plain.count);
      expect(faceted.ids, JSON.stringify(request)).toEqual(plain.ids);
      if (!request.groupByPack) expect(exact.count, JSON.stringify(request)).toBe(plain.count);
    }
  }, 120_000);

  it('answers the same facets from the posting index, before and after changes', async () => {
    const db = t.catalogue.db;
    const index = new LiveSearchIndex(db, NO_CHANGE_FEED, { rebuildAtLeast: 1_000_000 }).start();
    await vi.waitFor(() => expect(index.isReady()).toBe(true), { timeout: 60_000, interval: 20 });
    const compare = async () => {
      for (const request of indexSearches) {
        const search = prepareSearch({ ...request, facets: ALL });
        expect(postingIndexAnswers(search), JSON.stringify(request)).toBe(true);
        const mine = await index.search(search);
        expect(mine?.facets, JSON.stringify(request)).toEqual(await facetsOf(request));
        expect(mine?.count).toBe((await searchSounds(t.catalogue, request)).count);
      }
      // Without facets asked for, the answer carries none.
      expect((await index.search({ query: words[0] }))?.facets).toBeUndefined();
    };
    await compare();
    // Changes: new tags and a category on some sounds, a user renamed, a sound hidden, a new bit depth.
    await sql`update sounds set tags = tags || array['zzfacet', 'Zzfacet2'], category = 'zzcat'
      where id in (select id from sounds where moderation_state = 'ok' order by id limit 40)`.execute(db);
    await sql`update users set username = 'zz_renamed' where id = (select user_id from sounds order by id limit 1)`.execute(
      db,
    );
    await sql`update sounds set moderation_state = 'pending_moderation' where id = (select max(id) from sounds)`.execute(
      db,
    );
    await sql`update sounds set bitdepth = 8 where id % 50 = 1`.execute(db);
    await compare();
    const changed = await index.search(prepareSearch({ query: words[0], facets: ALL }));
    const tags = new Map(changed?.facets?.tags);
    const exact = await facetsOf({ query: words[0] });
    expect(new Map(exact.tags).get('zzfacet')).toBe(tags.get('zzfacet'));
    await checkCounts({ query: words[0] }, changed?.facets as Facets, 100);
    index.close();
  }, 120_000);

  it('answers few and many matches from the posting index as PostgreSQL does: every facet, no match, ties at the limit', async () => {
    const db = t.catalogue.db;
    const index = (await loadPostingIndexSince(db)).index;
    // Words by how many sounds they match: one, a handful, dozens, hundreds; and a word none holds.
    const sizes = words.flatMap((w) => {
      const n = index.lexemes.get(w)?.ids.length;
      return n ? [[w, n] as const] : [];
    });
    const nearest = (target: number) =>
      sizes.reduce((best, s) => (Math.abs(s[1] - target) < Math.abs(best[1] - target) ? s : best));
    const queries = [...new Set([1, 2, 5, 20, 60, 200, 2000].map((n) => nearest(n)[0]))];
    const matched = queries.map((q) => index.lexemes.get(q)?.ids.length ?? 0);
    expect(Math.min(...matched)).toBe(1);
    expect(Math.max(...matched)).toBeGreaterThan(300);
    // The most values a facet of these searches counts: above FEW_VALUES the top values are kept
    // by a heap, up to it by an insertion (posting-facets.ts); both are met here.
    const distinctTags = (q: string) =>
      new Set(
        [...(index.lexemes.get(q)?.ids ?? [])].flatMap((id) => [
          ...index.tagsBySound.tags.subarray(index.tagsBySound.starts[id], index.tagsBySound.starts[id + 1]),
        ]),
      ).size;
    expect(Math.max(...queries.map(distinctTags))).toBeGreaterThan(FEW_VALUES);
    expect(Math.min(...queries.map(distinctTags))).toBeLessThanOrEqual(FEW_VALUES);
    // A facet's codes are counted blindly and read back from every count when the additions
    // outnumber its values, else listed as they are met: both ways are met here, for the tags and
    // for a column of many values (users).
    const { starts } = index.tagsBySound;
    const tagAdds = matched.map((n) => (n * starts[starts.length - 1]) / (starts.length - 1));
    expect(Math.max(...tagAdds)).toBeGreaterThanOrEqual(index.tagNames.length);
    expect(Math.min(...tagAdds)).toBeLessThan(index.tagNames.length);
    expect(Math.max(...matched)).toBeGreaterThanOrEqual(index.facetValues.username.length);
    expect(Math.min(...matched)).toBeLessThan(index.facetValues.username.length);
    // Several column facets are counted in one pass over the matches when these outnumber a
    // quarter of their values (posting-facets.ts), else one by one: both are met here, and a
    // request of fewer column facets than TOGETHER_FROM is counted one by one at any size.
    const columnValues =
      2 * index.keywords.length + Object.values(index.facetValues).reduce((n, v) => n + v.length, 0);
    expect(Math.max(...matched) * 4).toBeGreaterThanOrEqual(columnValues);
    expect(Math.min(...matched) * 4).toBeLessThan(columnValues);
    const few: FacetName[] = ['tags', 'license', 'username'];
    expect(few.length - 1).toBeLessThan(TOGETHER_FROM);
    const memo: ClauseMemo = new Map();
    let tiesCut = 0;
    for (const query of ['zzznothing', ...queries]) {
      const every = (await facetsOf({ query }, ALL)) as Facets;
      for (const limit of [1, 3, 10, MAX_FACET_LIMIT]) {
        const facets = { names: FACET_NAMES, limit };
        const mine = await postingSearch(db, index, prepareSearch({ query, facets }), memo);
        const exact = await searchSounds(t.catalogue, { query, facets });
        expect(mine?.count, query).toBe(exact.count);
        expect(mine?.facets, `${query}, limit ${limit}`).toEqual(exact.facets);
        if (query === 'zzznothing') expect(Object.values(mine?.facets ?? {}).flat()).toEqual([]);
        const fewFacets = { names: few, limit };
        const mineFew = await postingSearch(db, index, prepareSearch({ query, facets: fewFacets }), memo);
        expect(mineFew?.facets, `${query}, ${few}, limit ${limit}`).toEqual(
          Object.fromEntries(few.map((name) => [name, exact.facets?.[name]])),
        );
        // A value left out that has the count of the last one kept: the order of values decides.
        for (const name of FACET_NAMES) {
          const kept = exact.facets?.[name] ?? [];
          const next = every[name]?.[limit];
          if (kept.length === limit && next && next[1] === kept[limit - 1][1]) tiesCut++;
        }
      }
    }
    expect(tiesCut).toBeGreaterThan(10);
  }, 120_000);

  it('finds the top tags from the most frequent down as counting the tags of every match', async () => {
    const db = t.catalogue.db;
    const live = new LivePostingIndex(await loadPostingIndexSince(db));
    const present = (index: PostingIndexData) =>
      Uint32Array.from([...index.columns.present.keys()].filter((id) => index.columns.present[id] === 1));
    const check = async () => {
      const index = live.data;
      const every = present(index);
      const matchSets = [every, every.filter((id) => id % 3 !== 0), every.filter((id) => id % 2 === 0)];
      for (const word of words.slice(0, 3)) {
        const list = index.lexemes.get(word);
        if (list)
          matchSets.push(
            list.ids.filter((id) => index.overlay?.masked[id] !== 1 && index.columns.present[id]),
          );
      }
      for (const matches of matchSets)
        for (const limit of [1, 3, 10, 100]) {
          const walked = byFrequency(index, matches, limit, Number.POSITIVE_INFINITY);
          expect(walked, `${matches.length} matches, limit ${limit}`).toEqual(
            perSound(index, matches, limit),
          );
        }
      // A walk over its budget gives up (the caller then counts every match's tags), before its
      // first tags or once they show that the rest would read too much; within it, it finds the same.
      expect(byFrequency(index, every, 10, 5)).toBeUndefined();
      let gaveUp = 0;
      for (const matches of matchSets)
        for (const budget of [100, 300, 1000, 3000, 10_000]) {
          const walked = byFrequency(index, matches, 10, budget);
          if (walked)
            expect(walked, `${matches.length} matches, budget ${budget}`).toEqual(
              perSound(index, matches, 10),
            );
          else gaveUp++;
        }
      expect(gaveUp).toBeGreaterThan(0);
    };
    await check();
    // Changed documents: their tags come from the overlay.
    const some = (
      await sql<{ id: number }>`select id from sounds order by id limit 300`.execute(db)
    ).rows.map((r) => r.id);
    await sql`update sounds set tags = array['zzover', 'zzover2'] || tags where id = any(${some}::int[])`.execute(
      db,
    );
    live.apply(some, await readDocuments(db, { ids: some }));
    await check();
  });

  it('refuses unknown facets and limits out of range', () => {
    expect(() => prepareSearch({ query: 'a', facets: { names: ['colour' as FacetName], limit: 5 } })).toThrow(
      /facet "colour".*tags, license/,
    );
    expect(() => prepareSearch({ query: 'a', facets: { names: ['tags'], limit: 0 } })).toThrow(/facet_limit/);
    expect(() =>
      prepareSearch({ query: 'a', facets: { names: ['tags'], limit: MAX_FACET_LIMIT + 1 } }),
    ).toThrow(/facet_limit/);
  });
});
