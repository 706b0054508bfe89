import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testBackends, useSearchCatalogue } from '../testing/index.ts';
import { loadSyntheticCatalogue, syntheticVocabulary } from '../testing/synthetic-catalogue.ts';
import { searchSounds } from './execute.ts';
import { termMemoOf } from './term-search.ts';

const postgresUrl = await testService('postgres');

/** The literal text of a raw statement, its nested statements included (every value a `?`). */
function rawText(node: unknown): string {
  const n = node as { kind?: string; sqlFragments?: readonly string[]; parameters?: readonly unknown[] };
  if (n?.kind !== 'RawNode' || !n.sqlFragments) return '?';
  const params = n.parameters ?? [];
  return n.sqlFragments.map((f, i) => f + (i < params.length ? rawText(params[i]) : '')).join('');
}

/** A deterministic generator, so a failure names the same cases on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 4_294_967_296;
  };
}

/**
 * The side-structure plans (phrase pairs, duration histogram, hidden descriptors, one-statement
 * term lookups) against the plain SQL of the same request, on a synthetic catalogue.
 */
describe.each(testBackends(postgresUrl))('fast paths give the plain results on %s', (backend) => {
  const t = useSearchCatalogue(
    backend,
    postgresUrl,
    (db) => loadSyntheticCatalogue(db, { sounds: 1500 }),
    120_000,
  );
  const rows = async <T>(statement: string) => (await sql.raw<T>(statement).execute(t.catalogue.db)).rows;
  const plainCount = async (where: string) =>
    (await rows<{ n: number }>(`select count(*)::int as n from sound_search s where ${where}`))[0].n;
  const lit = (text: string) => `'${text.replace(/'/g, "''")}'`;

  it('phrases: same matches, count and order as the tsvector phrase check alone', async () => {
    const r = rng(7);
    const descriptions = await rows<{ description: string; name: string }>(
      'select description, name from sound_search order by id',
    );
    const phrases = new Set<string>(['door creak', 'door the creak', 'creak door', 'the of', 'a-b c']);
    while (phrases.size < 60) {
      const d = descriptions[Math.floor(r() * descriptions.length)];
      const words = (r() < 0.8 ? d.description : d.name).split(/\s+/);
      const len = 2 + Math.floor(r() * 3);
      const at = Math.floor(r() * Math.max(1, words.length - len + 1));
      phrases.add(words.slice(at, at + len).join(' '));
    }
    let matched = 0;
    for (const phrase of phrases) {
      const tsq = `phraseto_tsquery('english', ${lit(phrase)})`;
      const expected = await rows<{ id: number }>(
        `select id from sound_search s where tsv @@ ${tsq}
         order by ts_rank('{0.25,0.5,0.75,1}', tsv, ${tsq}) desc, id limit 150`,
      );
      const got = await searchSounds(t.catalogue, { query: `"${phrase}"`, limit: 150 });
      expect({ phrase, ids: got.ids }).toEqual({ phrase, ids: expected.map((x) => x.id) });
      expect({ phrase, count: got.count }).toEqual({ phrase, count: await plainCount(`tsv @@ ${tsq}`) });
      if (got.count > 0) matched++;
    }
    expect(matched).toBeGreaterThan(40);
    // A phrase with other clauses, and a prohibited phrase (which must not narrow the search).
    const [a, b] = [...phrases].slice(5, 7);
    const mixed = await searchSounds(t.catalogue, { query: `"${a}" -"${b}" voice`, limit: 150 });
    const tsq = `phraseto_tsquery('english', ${lit(a)}) && !!phraseto_tsquery('english', ${lit(b)}) && plainto_tsquery('english', 'voice')`;
    expect(mixed.count).toBe(await plainCount(`tsv @@ (${tsq})`));
  });

  it('duration ranges and the total: counts from the histogram equal plain counts', async () => {
    const r = rng(11);
    const edges = [0, 0.1, 0.3, 0.7, 1, 2, 2.1, 2.3, 4, 5, 9.9, 10, 99.9, 99.95, 100, 100.5, 150, 3600];
    const value = () => (r() < 0.5 ? edges[Math.floor(r() * edges.length)] : Math.round(r() * 3000) / 100);
    const cases: string[] = ['[* TO *]', '[2 TO 4]', '[0 TO 100]', '[100 TO *]', '{99.9 TO 100]'];
    while (cases.length < 60) {
      const lo = r() < 0.15 ? '*' : String(value());
      const hi = r() < 0.15 ? '*' : String(value());
      cases.push(`${r() < 0.5 ? '[' : '{'}${lo} TO ${hi}${r() < 0.5 ? ']' : '}'}`);
    }
    for (const range of cases) {
      const [open, close] = [range[0], range[range.length - 1]];
      const [lo, hi] = range.slice(1, -1).split(' TO ');
      const conds = ['true'];
      if (lo !== '*') conds.push(`s.duration ${open === '[' ? '>=' : '>'} ${lo}`);
      if (hi !== '*') conds.push(`s.duration ${close === ']' ? '<=' : '<'} ${hi}`);
      const got = await searchSounds(t.catalogue, { filter: `duration:${range}`, sort: 'downloads_desc' });
      expect({ range, count: got.count }).toEqual({ range, count: await plainCount(conds.join(' and ')) });
    }
    const both = await searchSounds(t.catalogue, { filter: 'duration:[1 TO 10] duration:{2 TO 20]' });
    expect(both.count).toBe(await plainCount('s.duration > 2 and s.duration <= 10'));
    expect((await searchSounds(t.catalogue, {})).count).toBe(1500);
  });

  it('descriptor conditions: counts equal plain counts, also with some sounds hidden', async () => {
    const cases: [string, string][] = [
      ['bpm:[110 TO 130]', 'd.bpm >= 110 and d.bpm <= 130'],
      ['bpm:{110 TO 130}', 'd.bpm > 110 and d.bpm < 130'],
      ['bpm:[* TO 90]', 'd.bpm <= 90'],
      ['bpm:120', 'd.bpm = 120'],
      ['bpm:*', 'd.bpm is not null'],
      [
        'bpm:[100 TO 140] loudness:[-20 TO -10]',
        'd.bpm between 100 and 140 and d.loudness between -20 and -10',
      ],
      ['loudness:[-30 TO *]', 'd.loudness >= -30'],
    ];
    const check = async () => {
      for (const [filter, where] of cases) {
        const got = await searchSounds(t.catalogue, { filter, limit: 150 });
        const expected = await plainCount(
          `exists (select 1 from sound_descriptors d where d.sound_id = s.id and ${where})`,
        );
        expect({ filter, count: got.count }).toEqual({ filter, count: expected });
        expect(got.ids.length).toBe(Math.min(150, expected));
      }
    };
    await check();
    await sql`update sounds set moderation_state = 'rejected' where id % 7 = 0`.execute(t.catalogue.db);
    const hidden = await rows<{ n: number }>('select count(*)::int as n from search_hidden_descriptors');
    expect(hidden[0].n).toBeGreaterThan(100);
    await check();
    await sql`update sounds set moderation_state = 'ok' where id % 7 = 0`.execute(t.catalogue.db);
    await check();
  });

  it('one-word queries: one statement for rare words, counts kept past the last page', async () => {
    const vocab = syntheticVocabulary(50_000, 42);
    for (const word of [vocab[2000], vocab[40], 'voice']) {
      const tsq = `plainto_tsquery('english', ${lit(word)})`;
      const n = await plainCount(`tsv @@ ${tsq}`);
      for (const cap of [0, 5, Infinity]) {
        const first = await searchSounds(t.catalogue, { query: word }, { popularityCapAbove: cap });
        expect({ word, cap, count: first.count }).toEqual({ word, cap, count: n });
        const past = await searchSounds(
          t.catalogue,
          { query: word, offset: 999 * 15 },
          { popularityCapAbove: cap },
        );
        expect(past).toMatchObject({ count: n, ids: [] });
        const grouped = await searchSounds(
          t.catalogue,
          { query: word, groupByPack: '1', offset: 999 * 15 },
          { popularityCapAbove: cap },
        );
        const groups = await rows<{ n: number }>(
          `select count(distinct coalesce(pack_id, -id))::int as n from sound_search s where tsv @@ ${tsq}`,
        );
        expect({ word, cap, groups: grouped.count }).toEqual({ word, cap, groups: groups[0].n });
      }
    }
    // One clause of several lexemes (a hyphenated tag): never capped nor cut short by the gate.
    const [hyphenated] = await rows<{ tag: string }>(
      `select t as tag from sound_search, unnest(tags) t where t like '%-%' group by t order by count(*) desc limit 1`,
    );
    const several = await searchSounds(t.catalogue, { query: hyphenated.tag }, { popularityCapAbove: 0 });
    const expected = await plainCount(`tsv @@ plainto_tsquery('english', ${lit(hyphenated.tag)})`);
    expect(expected).toBeGreaterThan(1);
    expect(several.count).toBe(expected);
    expect(several.ids.length).toBe(Math.min(15, expected));
    const stopword = await searchSounds(t.catalogue, { query: 'the' });
    expect(stopword).toMatchObject({ count: 0, ids: [] });
  });

  it('what the term memo holds never changes the answer, and a stale entry is corrected', async () => {
    const vocab = syntheticVocabulary(50_000, 42);
    const [common, rare] = [vocab[40], vocab[2000]];
    const tsq = `plainto_tsquery('english', ${lit(common)})`;
    const n = await plainCount(`tsv @@ ${tsq}`);
    expect(n).toBeGreaterThan(20);
    // A query builder of its own is a catalogue whose memo starts empty.
    const fresh = () => ({ db: t.catalogue.db.withoutPlugins() });
    const catalogue = fresh();
    const memo = termMemoOf(catalogue.db);
    const cap = { popularityCapAbove: 5 };
    for (const groupByPack of [false, true]) {
      const request = { query: common, groupByPack, limit: 10 };
      const first = await searchSounds(catalogue, request, cap);
      const lexeme = memo.get(common);
      expect(typeof lexeme).toBe('string');
      if (!groupByPack) expect(first.count).toBe(n);
      expect(await searchSounds(catalogue, request, cap)).toEqual(first);
      // Remembered as rankable while it is common: the scan is cut short and the memo learns.
      memo.set(common, cap.popularityCapAbove);
      expect(await searchSounds(catalogue, request, cap)).toEqual(first);
      expect(memo.get(common)).toBe(lexeme);
      const rareRequest = { query: rare, groupByPack };
      const rareFirst = await searchSounds(catalogue, rareRequest, cap);
      expect(memo.get(rare)).toBe(5);
      expect(await searchSounds(catalogue, rareRequest, cap)).toEqual(rareFirst);
      expect(await searchSounds(fresh(), rareRequest, cap)).toEqual(rareFirst);
    }
    const lexeme = memo.get(common) as string;
    // More matches than the memo expects, fewer than the cap: the cut scan is followed by ranking all.
    for (const groupByPack of [false, true]) {
      const request = { query: common, groupByPack, limit: 10 };
      const above = { popularityCapAbove: n + 10 };
      memo.set(common, 2);
      const exact = await searchSounds(fresh(), request, { popularityCapAbove: Infinity });
      expect(await searchSounds(catalogue, request, above)).toEqual(exact);
      expect(memo.get(common)).toBe(n + 10);
      expect(await searchSounds(catalogue, request, above)).toEqual(exact);
      // The same memo under a lower cap: the word is common there, and gets the capped plan.
      expect(await searchSounds(catalogue, request, cap)).toEqual(await searchSounds(fresh(), request, cap));
      expect(typeof memo.get(common)).toBe('string');
    }
    // Hide all but 3 of its sounds: the memo still says common, the df says otherwise.
    const ids = await rows<{ id: number }>(`select id from sound_search s where tsv @@ ${tsq} order by id`);
    const hidden = ids.slice(3).map((r) => r.id);
    await sql`update sounds set moderation_state = 'rejected' where id = any(${hidden})`.execute(
      t.catalogue.db,
    );
    try {
      for (const groupByPack of [false, true]) {
        const request = { query: common, groupByPack, limit: 10 };
        const exact = await searchSounds(fresh(), request, { popularityCapAbove: Infinity });
        if (!groupByPack) expect(exact.count).toBe(3);
        memo.set(common, lexeme);
        expect(await searchSounds(catalogue, request, cap)).toEqual(exact);
        expect(memo.get(common)).toBe(5);
      }
    } finally {
      await sql`update sounds set moderation_state = 'ok' where id = any(${hidden})`.execute(t.catalogue.db);
    }
  });

  it('several clauses: counts exact under every cap, the capped page only matches, a stale memo corrected', async () => {
    const vocab = syntheticVocabulary(50_000, 42);
    const [a, b, c] = [vocab[0], vocab[1], vocab[3]];
    const plain = (w: string) => `plainto_tsquery('english', ${lit(w)})`;
    // Two common words (many matches together), a word with a prohibited one, a phrase and a word.
    const cases = [
      { query: `${a} ${b}`, tsq: `${plain(a)} && ${plain(b)}` },
      { query: `${b} -${c}`, tsq: `${plain(b)} && !!${plain(c)}` },
      { query: `"${a}" ${c}`, tsq: `phraseto_tsquery('english', ${lit(a)}) && ${plain(c)}` },
    ];
    const fresh = () => ({ db: t.catalogue.db.withoutPlugins() });
    for (const { query, tsq } of cases) {
      const exact = await searchSounds(fresh(), { query, limit: 30 }, { popularityCapAbove: Infinity });
      const matchIds = new Set(
        (await rows<{ id: number }>(`select id from sound_search s where tsv @@ (${tsq})`)).map((r) => r.id),
      );
      expect(exact.count).toBe(matchIds.size);
      expect(exact.count).toBeGreaterThan(30);
      const catalogue = fresh();
      const memo = termMemoOf(catalogue.db);
      for (const cap of [0, 5]) {
        const capped = await searchSounds(catalogue, { query, limit: 30 }, { popularityCapAbove: cap });
        expect({ query, cap, count: capped.count }).toEqual({ query, cap, count: exact.count });
        expect(capped.ids.length).toBe(30);
        for (const id of capped.ids) expect(matchIds.has(id)).toBe(true);
        expect(capped.scores).toEqual([...capped.scores].sort((a, b) => b - a));
        // Asked again, the memo says "above the cap": count and page at once, the same answer.
        expect([...memo.values()]).toContain('*');
        expect(await searchSounds(catalogue, { query, limit: 30 }, { popularityCapAbove: cap })).toEqual(
          capped,
        );
      }
      // Under a cap above its matches the memo's "above the cap" is corrected: the exact answer.
      const above = { popularityCapAbove: exact.count + 1 };
      expect(await searchSounds(catalogue, { query, limit: 30 }, above)).toEqual(exact);
      expect([...memo.values()]).toContain(exact.count + 1);
      // A page past the popular candidates is ranked exactly too.
      const deep = await searchSounds(
        catalogue,
        { query, limit: 30, offset: 990 },
        { popularityCapAbove: 0 },
      );
      expect(deep).toEqual(
        await searchSounds(fresh(), { query, limit: 30, offset: 990 }, { popularityCapAbove: Infinity }),
      );
    }
  });

  it('several clauses whose df rows keep them under the cap: ranked in full without a count statement', async () => {
    const vocab = syntheticVocabulary(50_000, 42);
    const query = `${vocab[0]} ${vocab[1]}`;
    const sent: string[] = [];
    // A catalogue of its own (empty memo) that notes the text of every statement it runs.
    const catalogue = {
      db: t.catalogue.db.withPlugin({
        transformQuery(args) {
          sent.push(rawText(args.node));
          return args.node;
        },
        async transformResult(args) {
          return args.result;
        },
      }),
    };
    const memo = termMemoOf(catalogue.db);
    const under = { popularityCapAbove: 1_000_000 };
    const exact = await searchSounds(
      { db: t.catalogue.db.withoutPlugins() },
      { query, limit: 30 },
      { popularityCapAbove: Infinity },
    );
    expect(exact.count).toBeGreaterThan(3);
    expect(await searchSounds(catalogue, { query, limit: 30 }, under)).toEqual(exact);
    // Remembered as having at most 2 matches: the scan is cut short, and the df rows decide.
    const [key] = [...memo.keys()];
    memo.set(key, 2);
    sent.length = 0;
    expect(await searchSounds(catalogue, { query, limit: 30 }, under)).toEqual(exact);
    expect(sent.some((s) => s.includes('search_term_df'))).toBe(true);
    expect(sent.filter((s) => s.includes('count(*)::int as n from'))).toEqual([]);
    expect(memo.get(key)).toBe(1_000_000);
  });

  it("another order than relevance: the page and its scores are the plain statement's", async () => {
    const vocab = syntheticVocabulary(50_000, 42);
    for (const [query, sort, order] of [
      [vocab[1], 'downloads_desc', 'num_downloads desc, id'],
      [`${vocab[0]} ${vocab[4]}`, 'duration_asc', 'duration asc, id'],
      [vocab[2000], 'created_desc', 'created desc, id'],
    ]) {
      const tsq = query
        .split(' ')
        .map((w) => `plainto_tsquery('english', ${lit(w)})`)
        .join(' && ');
      const expected = await rows<{ id: number; score: number }>(
        `select id, ts_rank('{0.25,0.5,0.75,1}', tsv, ${tsq})::float8 as score from sound_search s
         where tsv @@ (${tsq}) order by ${order} limit 20`,
      );
      const got = await searchSounds(t.catalogue, { query, sort, limit: 20 });
      expect({ query, ids: got.ids }).toEqual({ query, ids: expected.map((r) => r.id) });
      expect(got.scores.map((x) => x.toFixed(5))).toEqual(expected.map((r) => Number(r.score).toFixed(5)));
    }
  });

  it('another order with a filter: page, scores and count from one scan equal the plain statements', async () => {
    const vocab = syntheticVocabulary(50_000, 42);
    const cases: [string, string, string, string, string][] = [
      [
        vocab[0],
        'duration:[0 TO 5]',
        's.duration >= 0 and s.duration <= 5',
        'duration_desc',
        'duration desc, id',
      ],
      [`${vocab[1]} ${vocab[3]}`, 'type:wav', "s.type = 'wav'", 'created_desc', 'created desc, id'],
      [
        vocab[2000],
        'duration:[0 TO 5]',
        's.duration >= 0 and s.duration <= 5',
        'duration_desc',
        'duration desc, id',
      ],
      [
        vocab[5],
        'avg_rating:[3 TO 5]',
        's.avg_rating >= 3 and s.avg_rating <= 5',
        'rating_desc',
        'avg_rating desc, num_ratings desc, id',
      ],
    ];
    let most = 0;
    for (const [query, filter, where, sort, order] of cases) {
      const tsq = query
        .split(' ')
        .map((w) => `plainto_tsquery('english', ${lit(w)})`)
        .join(' && ');
      const n = await plainCount(`tsv @@ (${tsq}) and ${where}`);
      most = Math.max(most, n);
      for (const offset of [0, 10, n + 5]) {
        const expected = await rows<{ id: number; score: number }>(
          `select id, ts_rank('{0.25,0.5,0.75,1}', tsv, ${tsq})::float8 as score from sound_search s
           where tsv @@ (${tsq}) and ${where} order by ${order} limit 10 offset ${offset}`,
        );
        // The one scan, and (with fewer allowed than the matches) the B-tree page and a count.
        for (const upTo of [undefined, 3]) {
          const request = { query, filter, sort, limit: 10, offset };
          const got = await searchSounds(t.catalogue, request, { sortedScanUpTo: upTo });
          expect({ query, filter, offset, upTo, count: got.count, ids: got.ids }).toEqual({
            query,
            filter,
            offset,
            upTo,
            count: n,
            ids: expected.map((r) => r.id),
          });
          expect(got.scores.map((x) => x.toFixed(5))).toEqual(
            expected.map((r) => Number(r.score).toFixed(5)),
          );
        }
      }
    }
    expect(most).toBeGreaterThan(20);
  });
});
