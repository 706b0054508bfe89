import { testService } from '@earshot/common/testing';
import { seededRandom } from '@earshot/core/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testBackends, useSearchCatalogue } from '../testing/index.ts';
import { loadSyntheticCatalogue, syntheticVocabulary } from '../testing/synthetic-catalogue.ts';
import { searchSounds } from './execute.ts';
import { FACET_NAMES } from './facets.ts';
import {
  intersect,
  type PostingIndexData,
  type PostingList,
  postingIndexAnswers,
  searchPostingIndex,
  topK,
} from './posting-index.ts';
import { emptyColumns, loadPostingIndex, readTsvector } from './posting-index-load.ts';
import { type ClauseMemo, postingSearch } from './posting-search.ts';
import { prepareSearch, type SearchRequest } from './prepare.ts';

const postgresUrl = await testService('postgres');

/** An index of `size` ids made by hand from its lexemes' lists: no tags, packs or facet values. */
function handIndex(size: number, lexemes: Map<string, PostingList>): PostingIndexData {
  return {
    lexemes,
    tags: new Map(),
    columns: emptyColumns(size),
    keywords: [],
    maxPackId: 0,
    facetValues: {
      category: [''],
      subcategory: [''],
      username: [''],
      pack: [''],
      samplerate: [''],
      channels: [''],
      bitdepth: [''],
    },
    tagNames: [],
    tagsBySound: { starts: new Uint32Array(size + 1), tags: new Uint32Array(0) },
  };
}

describe('posting index parts', () => {
  it('reads a tsvector text with positions, weights, quotes and stripped positions', () => {
    const seen: [string, number[], boolean][] = [];
    readTsvector("'dog':1A,4,7C 'it''s':2B 'bare' 'x\\\\y':3D 'far':16383", (l, p, bare) =>
      seen.push([l, [...p], bare]),
    );
    expect(seen).toEqual([
      ['dog', [1 | (3 << 14), 4, 7 | (1 << 14)], false],
      ["it's", [2 | (2 << 14)], false],
      ['bare', [16383], true],
      ['x\\y', [3], false],
      ['far', [16383], false],
    ]);
  });

  it('intersects ascending lists of any sizes', () => {
    const a = Uint32Array.from([1, 3, 5, 7, 9, 11, 200, 5000]);
    const b = Uint32Array.from(Array.from({ length: 3000 }, (_, i) => i * 2 + 1));
    expect([...intersect([a, b])]).toEqual([1, 3, 5, 7, 9, 11]);
    expect([...intersect([b, Uint32Array.from([5999, 6001])])]).toEqual([5999]);
    expect([...intersect([a])]).toEqual([...a]);
    expect([...intersect([])]).toEqual([]);
  });

  it("pages one long word's list from its best postings, changed documents skipped and their new postings merged", () => {
    // 6,000 documents of one word, scores with many ties; 40 changed (masked), 25 of them still
    // holding it, and two new ones (masked too: the live index masks every changed id).
    const random = seededRandom(7);
    const size = 20_000;
    const ids = Uint32Array.from({ length: 6000 }, (_, i) => 1 + i * 3);
    const scores = Float32Array.from(ids, () => Math.fround(Math.floor(random() * 20) / 20));
    const list = (l: Uint32Array, sc: Float32Array): PostingList => ({
      ids: l,
      scores: sc,
      positions: { first: new Uint32Array(l.length), more: new Uint16Array(0) },
    });
    const masked = new Uint8Array(size);
    const changedBefore = Uint32Array.from(
      topK(ids, 40, (a, b) => scores[ids.indexOf(b)] - scores[ids.indexOf(a)] || a - b),
    ).sort();
    const maskedIds = Uint32Array.from([...changedBefore, 19_000, 19_003]);
    for (const id of maskedIds) masked[id] = 1;
    const changedIds = Uint32Array.from([...changedBefore.slice(0, 25), 19_000, 19_003]).sort();
    const changedScores = Float32Array.from(changedIds, () => Math.fround(random()));
    const index: PostingIndexData = {
      ...handIndex(size, new Map([['dog', list(ids, scores)]])),
      overlay: {
        masked,
        maskedIds: () => maskedIds,
        lexeme: (name) => (name === 'dog' ? list(changedIds, changedScores) : undefined),
        tag: () => undefined,
        tagsOf: () => [],
      },
    };
    // The oracle: every current posting, by score (descending), then id.
    const current = [
      ...[...ids].map((id, i) => ({ id, score: scores[i] })).filter(({ id }) => masked[id] !== 1),
      ...[...changedIds].map((id, i) => ({ id, score: changedScores[i] })),
    ].sort((a, b) => b.score - a.score || a.id - b.id);
    for (const offset of [0, 15, 960, 990, 1005]) {
      const answer = searchPostingIndex(index, prepareSearch({ query: 'dog', offset }), [['dog']]);
      const expected = current.slice(offset, offset + 15);
      expect(answer.count).toBe(current.length);
      expect(answer.ids, `offset ${offset}`).toEqual(expected.map((p) => p.id));
      expect(answer.scores).toEqual(expected.map((p) => p.score));
      // Asked for facets, the same page from the best postings, and every current match to count them over.
      const faceted = searchPostingIndex(
        index,
        prepareSearch({ query: 'dog', offset, facets: { names: ['tags'], limit: 10 } }),
        [['dog']],
      );
      expect(faceted.ids).toEqual(answer.ids);
      expect(faceted.scores).toEqual(answer.scores);
      expect(faceted.count).toBe(current.length);
      expect([...(faceted.matches ?? [])]).toEqual(current.map((p) => p.id).sort((a, b) => a - b));
    }
    // Past the best postings the page comes from every match: the faceted answer's matches alike.
    const deep = searchPostingIndex(
      index,
      prepareSearch({ query: 'dog', offset: 3000, facets: { names: ['tags'], limit: 10 } }),
      [['dog']],
    );
    expect([...(deep.matches ?? [])]).toEqual(current.map((p) => p.id).sort((a, b) => a - b));
    expect(deep.ids).toEqual(current.slice(3000, 3015).map((p) => p.id));
  });

  it('ranks two words of more than RERANK_ALL matches alike whether their sums are added while intersecting or after', () => {
    // 60,000 documents hold `alpha`, the odd ids up to 90,000 `beta`: 30,000 hold both, so the page
    // comes from the best 2,000 by summed scores. An all-passing filter takes the path that adds the
    // sums after the intersection; the answers must not differ.
    const random = seededRandom(11);
    const size = 100_000;
    const list = (ids: Uint32Array, spread: number): PostingList => ({
      ids,
      scores: Float32Array.from(ids, () => Math.fround(Math.floor(random() * 8) / 8)),
      positions: {
        first: Uint32Array.from(ids, () => 1 + Math.floor(random() * spread)),
        more: new Uint16Array(0),
      },
    });
    const alpha = list(
      Uint32Array.from({ length: 60_000 }, (_, i) => i + 1),
      30,
    );
    const beta = list(
      Uint32Array.from({ length: 45_000 }, (_, i) => 2 * i + 1),
      30,
    );
    const index = handIndex(
      size,
      new Map([
        ['alpha', alpha],
        ['beta', beta],
      ]),
    );
    for (const offset of [0, 45]) {
      const plain = searchPostingIndex(index, prepareSearch({ query: 'alpha beta', offset }), [
        ['alpha'],
        ['beta'],
      ]);
      const filtered = searchPostingIndex(
        index,
        prepareSearch({ query: 'alpha beta', offset, filter: 'duration:[0 TO *]' }),
        [['alpha'], ['beta']],
      );
      expect(plain.count).toBe(30_000);
      expect(plain.approximate).toBe(true);
      expect(plain.ids).toHaveLength(15);
      expect(filtered.count).toBe(plain.count);
      expect(filtered.ids, `offset ${offset}`).toEqual(plain.ids);
      expect(filtered.scores).toEqual(plain.scores);
    }
  });

  it('keeps the first k in order, ties as the order says', () => {
    const values = [5, 1, 9, 3, 9, 2, 8];
    expect(topK(values, 3, (x, y) => y - x)).toEqual([9, 9, 8]);
    expect(topK(values, 10, (x, y) => x - y)).toEqual([1, 2, 3, 5, 8, 9, 9]);
    expect(topK(values, 0, (x, y) => x - y)).toEqual([]);
  });
});

/**
 * The index against the engine's exact plans (every match ranked: popularityCapAbove Infinity):
 * the same count for every search it answers, the same page when one word decides the order or the
 * order is a column, and every match of several words ranked by PostgreSQL.
 */
describe.each(testBackends(postgresUrl))('the posting index answers as the engine on %s', (backend) => {
  const t = useSearchCatalogue(
    backend,
    postgresUrl,
    (db) => loadSyntheticCatalogue(db, { sounds: 1500 }),
    120_000,
  );
  let index: PostingIndexData;
  const memo: ClauseMemo = new Map();

  const compare = async (request: SearchRequest) => {
    index ??= await loadPostingIndex(t.catalogue.db);
    const search = prepareSearch(request);
    expect(postingIndexAnswers(search), JSON.stringify(request)).toBe(true);
    const mine = await postingSearch(t.catalogue.db, index, search, memo);
    const exact = await searchSounds(t.catalogue, search, { popularityCapAbove: Number.POSITIVE_INFINITY });
    expect(mine, `answered from the index: ${JSON.stringify(request)}`).toBeDefined();
    expect(mine?.count, JSON.stringify(request)).toBe(exact.count);
    if (exact.facets) expect(mine?.facets, JSON.stringify(request)).toEqual(exact.facets);
    expect(mine?.ids, JSON.stringify(request)).toEqual(exact.ids);
    expect(
      mine?.scores.map((s) => Math.fround(s)),
      JSON.stringify(request),
    ).toEqual(exact.scores.map((s) => Math.fround(s)));
    if (exact.packGroups) expect(mine?.packGroups).toEqual(exact.packGroups);
    return exact.count;
  };

  it('one word: exact counts, ts_rank scores and pages, common and rare words', async () => {
    const words = syntheticVocabulary(50_000).filter((_, i) => i < 30 || i % 997 === 0);
    let matched = 0;
    for (const word of words) {
      for (const offset of [0, 15]) matched += await compare({ query: word, offset });
    }
    expect(matched).toBeGreaterThan(1000);
  });

  it('several words, filters, sorts and groups: exact counts and pages', async () => {
    const words = syntheticVocabulary(50_000).slice(0, 40);
    const filters = [
      undefined,
      'tag:dog',
      'duration:[0 TO 5]',
      'license:"Creative Commons 0"',
      'type:wav',
      'bpm:[80 TO 120]',
      'duration:{1 TO 10] -type:mp3',
      '-bpm:[80 TO 120]',
      'bpm:[100 TO *] OR tag:dog',
      'tag:dog duration:[0 TO 5] tag:field',
    ];
    const sorts = [undefined, 'downloads_desc', 'rating_desc', 'duration_asc', 'created_desc'];
    let matched = 0;
    for (let i = 0; i < 120; i++) {
      const query = [words[i % 40], words[(i * 7) % 40], words[(i * 13) % 17]]
        .slice(0, 1 + (i % 3))
        .join(' ');
      const filter = filters[i % filters.length];
      const sort = sorts[Math.floor(i / 7) % sorts.length];
      const groupByPack = i % 5 === 0;
      matched += await compare({ query, filter, sort, groupByPack });
    }
    expect(matched).toBeGreaterThan(1000);
  });

  it('quoted phrases: the same matches, counts, pages, scores, groups and facets as PostgreSQL', async () => {
    const db = t.catalogue.db;
    // Phrases from the documents themselves: stretches of 2–3 words of a description (stopwords
    // inside), of a name, and across the fields' boundaries in the document's order (last tag, then
    // description; end of description, then name; end of name or pack, then username).
    const { rows } = await sql<{ tags: string[]; description: string; name: string; username: string }>`
      select tags, description, name || ' ' || coalesce(pack_name, '') as name, username
      from sound_search order by id limit 60`.execute(db);
    const words = (text: string) => text.split(/\s+/).filter(Boolean);
    const phrases = new Set<string>();
    for (const [i, r] of rows.entries()) {
      const d = words(r.description);
      const n = words(r.name);
      const size = 2 + (i % 2);
      if (d.length >= size)
        phrases.add(d.slice(i % (d.length - size + 1), (i % (d.length - size + 1)) + size).join(' '));
      if (n.length >= 2) phrases.add(n.slice(0, 2).join(' '));
      if (i % 3 === 0 && r.tags.length && d.length) phrases.add(`${r.tags.at(-1)} ${d[0]}`);
      if (i % 3 === 1 && d.length && n.length) phrases.add(`${d.at(-1)} ${n[0]}`);
      if (i % 3 === 2 && n.length) phrases.add(`${n.at(-1)} ${r.username}`);
      // Words far apart: the first tag and the description's last word.
      if (i % 5 === 0 && r.tags.length && d.length > 4) phrases.add(`${r.tags[0]} ${d.at(-1)}`);
    }
    const common = syntheticVocabulary(50_000).slice(0, 6);
    for (const w of common) phrases.add(`${w} ${w}`);
    phrases.add(`${common[0]} the of ${common[1]}`);
    phrases.add(`the ${common[2]} ${common[3]}`);
    phrases.add(`${common[1]} ${common[0]}`);
    phrases.add('zzzqx yyyqx');
    // A hyphenated word is several lexemes at consecutive positions (`a-b` → 'a-b' <-> 'a' <-> 'b'):
    // such a word beside the word that follows it in a description.
    const hyphenated = (
      await sql<{ phrase: string }>`select substring(description from '[^ ]+-[^ ]+ [^ ]+') as phrase
        from sound_search where description ~ '[^ ]+-[^ ]+ [^ ]+' order by id limit 3`.execute(db)
    ).rows;
    expect(hyphenated.length).toBe(3);
    for (const r of hyphenated) phrases.add(r.phrase);
    let matched = 0;
    let matching = 0;
    for (const [i, phrase] of [...phrases].entries()) {
      const count = await compare({ query: `"${phrase}"` });
      matched += count;
      if (count > 0) matching++;
      // Beside a word, with a filter and sorted, grouped, and faceted.
      if (i % 4 === 0) await compare({ query: `"${phrase}" ${common[i % 6]}` });
      if (i % 4 === 1)
        await compare({ query: `"${phrase}"`, filter: 'duration:[0 TO 8]', sort: 'downloads_desc' });
      if (i % 4 === 2) await compare({ query: `"${phrase}"`, groupByPack: true });
      if (i % 8 === 3) await compare({ query: `"${phrase}"`, facets: { names: FACET_NAMES, limit: 10 } });
    }
    expect(matching).toBeGreaterThan(60);
    expect(matched).toBeGreaterThan(300);
    // Two phrases, a phrase of one lexeme, stopwords only beside a word (left out, as PostgreSQL's
    // `&&` leaves an empty tsquery), a word that is only stopwords, and every match of a common pair.
    for (const query of [
      `"${common[0]} ${common[0]}" "${common[1]} ${common[1]}"`,
      `"the ${common[0]}"`,
      `${common[0]} "the of"`,
      `${common[0]} the`,
      '"the of"',
      `"${common[0]} ${common[1]}" ${common[2]}`,
    ])
      for (const offset of [0, 15]) await compare({ query, offset });
  }, 120_000);

  it('asks PostgreSQL for the terms of clauses concurrent searches meet in shared statements', async () => {
    index ??= await loadPostingIndex(t.catalogue.db);
    let statements = 0;
    const db = t.catalogue.db.withPlugin({
      transformQuery: (args) => {
        statements++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const words = syntheticVocabulary(50_000).slice(100, 108);
    const fresh: ClauseMemo = new Map();
    const answers = await Promise.all(
      words.map((w) => postingSearch(db, index, prepareSearch({ query: `${w} "${w} ${w}"` }), fresh)),
    );
    // The first search's statement, then one for the clauses of the seven that came meanwhile.
    expect(statements).toBe(2);
    expect(fresh.size).toBe(16);
    for (const [i, w] of words.entries())
      expect(answers[i]).toEqual(
        await postingSearch(db, index, prepareSearch({ query: `${w} "${w} ${w}"` }), memo),
      );
  });

  it('leaves exclusions, numbers, weights and other filters to PostgreSQL', () => {
    for (const request of [
      { query: '"door creak" -bird' },
      { query: 'dog -bird' },
      { query: '123' },
      { query: 'dog', weights: 'tag:1' },
      { query: 'dog', filter: 'created:[NOW-1YEAR TO NOW]' },
      { query: 'dog', filter: 'username:alice' },
      { query: '' },
    ])
      expect(postingIndexAnswers(prepareSearch(request)), JSON.stringify(request)).toBe(false);
  });
});
