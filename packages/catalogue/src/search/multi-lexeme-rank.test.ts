import { testService } from '@earshot/common/testing';
import { seededRandom } from '@earshot/core/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testBackends, useSearchCatalogue } from '../testing/index.ts';
import { type ClauseTerms, readClauseQuery } from './clause-terms.ts';
import { MANY_POSITIONS, NO_POSITIONS, RankScratch, rankOrder } from './multi-lexeme-rank.ts';
import { DEFAULT_CLASS_WEIGHTS, singleLexemeRank } from './posting-index.ts';
import { GrowingUint16, readTsvector } from './posting-index-load.ts';

const postgresUrl = await testService('postgres');

// Words the English configuration keeps as they are, so a query can name the lexemes directly.
const WORDS = [
  'dog',
  'bird',
  'rain',
  'wind',
  'door',
  'bell',
  'car',
  'horn',
  'drum',
  'glass',
  'metal',
  'wood',
];

/** A scratch holding the positions of `lexemes` (slots in rankOrder) in the document whose tsvector text is `tsv`; undefined when one is missing. */
function loaded(
  tsv: string,
  lexemes: readonly string[],
): { scratch: RankScratch; ordered: string[] } | undefined {
  const found = new Map<string, { positions: number[]; bare: boolean }>();
  readTsvector(tsv, (lexeme, positions, bare) => found.set(lexeme, { positions: [...positions], bare }));
  const ordered = rankOrder(lexemes);
  const scratch = new RankScratch(ordered.length, DEFAULT_CLASS_WEIGHTS);
  const more = new GrowingUint16(16);
  for (const [slot, lexeme] of ordered.entries()) {
    const posting = found.get(lexeme);
    if (!posting) return undefined;
    const first = posting.bare
      ? NO_POSITIONS
      : posting.positions.length === 1
        ? posting.positions[0]
        : MANY_POSITIONS + more.push(posting.positions.length);
    if (first >= MANY_POSITIONS) for (const p of posting.positions) more.push(p);
    scratch.load(slot, { first: Uint32Array.of(first), more: more.array() }, 0);
  }
  return { scratch, ordered };
}

/** Our rank of `query` (lexemes) in the document whose tsvector text is `tsv`. */
function ourRank(tsv: string, query: readonly string[]): number {
  const ordered = rankOrder(query);
  // A query of one distinct lexeme is ranked as one word (PostgreSQL falls back to calc_rank_or).
  if (ordered.length === 1) {
    let positions: number[] = [];
    readTsvector(tsv, (lexeme, p) => {
      if (lexeme === ordered[0]) positions = [...p];
    });
    return singleLexemeRank(positions);
  }
  const doc = loaded(tsv, query);
  if (!doc) throw new Error(`${query} is not all in ${tsv}`);
  return doc.scratch.rank();
}

/** Whether the document holds the phrase, by our match on its positions. */
function ourPhrase(tsv: string, terms: ClauseTerms): boolean {
  if (!terms.lexemes.length) return false;
  const doc = loaded(tsv, terms.lexemes);
  if (!doc) return false;
  if (!terms.phrase) return true;
  const slots = terms.phrase.lexemes.map((l) => doc.ordered.indexOf(l));
  return doc.scratch.phrase(slots, terms.phrase.distances);
}

describe('the order PostgreSQL ranks a query lexemes in', () => {
  it('is byte order, a prefix before the longer word', () => {
    expect(rankOrder(['wood', 'dog', 'do', 'dog', 'émail', 'zebra'])).toEqual([
      'do',
      'dog',
      'wood',
      'zebra',
      'émail',
    ]);
  });
});

describe.each(testBackends(postgresUrl))('ts_rank of several lexemes equals PostgreSQL on %s', (backend) => {
  const t = useSearchCatalogue(backend, postgresUrl, async () => {});

  it('for weighted documents of every length, repeated words, far words and stripped positions', async () => {
    const random = seededRandom(33);
    const pick = () => WORDS[Math.floor(random() * WORDS.length)];
    const text = (n: number) => Array.from({ length: n }, pick).join(' ');
    const cases: { parts: string[]; strip: boolean; query: string[] }[] = [];
    for (let i = 0; i < 300; i++) {
      // Four fields of different weights, some long enough to put words more than 100 apart.
      const long = i % 10 === 0 ? 150 : 12;
      const parts = [
        text(1 + Math.floor(random() * 4)),
        text(Math.floor(random() * 5)),
        text(Math.floor(random() * long)),
        text(Math.floor(random() * 3)),
      ];
      const size = 2 + Math.floor(random() * 3);
      const query = Array.from({ length: size }, pick);
      cases.push({ parts, strip: i % 37 === 0, query });
    }
    let compared = 0;
    for (const c of cases) {
      const vector = sql`setweight(to_tsvector('english', ${c.parts[0]}), 'A') || setweight(to_tsvector('english', ${c.parts[1]}), 'B')
        || setweight(to_tsvector('english', ${c.parts[2]}), 'C') || to_tsvector('english', ${c.parts[3]})`;
      const tsv = c.strip ? sql`strip(${vector})` : vector;
      const query = c.query.join(' & ');
      const { rows } = await sql<{ tsv: string; rank: number | null }>`
        select v::text as tsv, case when v @@ ${query}::tsquery
          then ts_rank('{0.25,0.5,0.75,1}'::float4[], v, ${query}::tsquery)::float8 end as rank
        from (select ${tsv} as v) x`.execute(t.catalogue.db);
      const { tsv: vectorText, rank } = rows[0];
      if (rank === null) continue;
      expect(ourRank(vectorText, c.query), `${vectorText} / ${query}`).toBe(rank);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  });
});

describe.each(testBackends(postgresUrl))('phrases match and rank as PostgreSQL on %s', (backend) => {
  const t = useSearchCatalogue(backend, postgresUrl, async () => {});
  const STOPWORDS = ['the', 'of', 'a', 'and', 'in'];

  /** PostgreSQL's answer for one document (a tsvector expression) and one phrase, beside ours. */
  const check = async (vector: ReturnType<typeof sql>, phrase: string) => {
    const { rows } = await sql<{ tsv: string; q: string; matches: boolean; rank: number }>`
      select v::text as tsv, q::text as q, v @@ q as matches,
        ts_rank('{0.25,0.5,0.75,1}'::float4[], v, q)::float8 as rank
      from (select ${vector} as v, phraseto_tsquery('english', ${phrase}::text) as q) x`.execute(
      t.catalogue.db,
    );
    const { tsv, q, matches, rank } = rows[0];
    const terms = readClauseQuery(q, true);
    if (!terms) throw new Error(`${q} is not a chain`);
    const label = `${tsv} / ${q}`;
    expect(ourPhrase(tsv, terms), label).toBe(matches);
    if (matches) expect(ourRank(tsv, terms.lexemes), label).toBe(rank);
    return matches;
  };

  it('for stopwords inside, repeated words, words far apart, field boundaries and stripped positions', async () => {
    const random = seededRandom(39);
    const pick = () =>
      random() < 0.25 ? STOPWORDS[Math.floor(random() * STOPWORDS.length)] : WORDS[Math.floor(random() * 6)];
    const text = (n: number) => Array.from({ length: n }, pick).join(' ');
    let matched = 0;
    let compared = 0;
    for (let i = 0; i < 400; i++) {
      const long = i % 10 === 0 ? 150 : 10;
      const parts = [
        text(1 + Math.floor(random() * 4)),
        text(Math.floor(random() * 6)),
        text(Math.floor(random() * long)),
        text(Math.floor(random() * 3)),
      ];
      // Half the phrases are a stretch of the document's own words (across its fields' boundaries).
      const words = parts.join(' ').split(' ').filter(Boolean);
      const size = 2 + Math.floor(random() * 3);
      const start = Math.floor(random() * Math.max(1, words.length - size));
      const phrase =
        i % 2 === 0 && words.length >= size ? words.slice(start, start + size).join(' ') : text(size);
      const vector = sql`setweight(to_tsvector('english', ${parts[0]}), 'A') || setweight(to_tsvector('english', ${parts[1]}), 'B')
        || setweight(to_tsvector('english', ${parts[2]}), 'C') || to_tsvector('english', ${parts[3]})`;
      if (await check(i % 41 === 0 ? sql`strip(${vector})` : vector, phrase)) matched++;
      compared++;
    }
    expect(compared).toBe(400);
    expect(matched).toBeGreaterThan(100);
  }, 60_000);

  it('at the last position (16383), where every later word is stored too', async () => {
    const filler = (n: number) => `${'filler '.repeat(n)}`;
    for (const [n, phrase, expected] of [
      [16390, 'dog bark', false],
      [16380, 'dog bark', true],
      [16381, 'bark wood', false],
      [16381, 'dog bark', true],
      [16382, 'dog bark', false],
      [16380, 'dog the wood', true],
    ] as const)
      expect(await check(sql`to_tsvector('english', ${`${filler(n)}dog bark wood`}::text)`, phrase)).toBe(
        expected,
      );
    expect(await check(sql`${"'dog':16382A 'bark':16383,20"}::tsvector`, 'dog bark')).toBe(true);
    expect(await check(sql`${"'dog':3 'bark':3"}::tsvector`, 'dog bark')).toBe(false);
    expect(await check(sql`${"'dog':3,4 'bark'"}::tsvector`, 'dog bark')).toBe(false);
    expect(await check(sql`${"'dog':3,4"}::tsvector`, 'dog dog')).toBe(true);
    expect(await check(sql`${"'dog':3,5"}::tsvector`, 'dog dog')).toBe(false);
  });

  it('reads the tsquery PostgreSQL prints: distances, quotes and backslashes, and refuses anything else', () => {
    expect(readClauseQuery("'dog' <-> 'bark' <3> 'it''s' <-> 'a\\\\b'", true)).toEqual({
      lexemes: ['dog', 'bark', "it's", 'a\\b'],
      phrase: { lexemes: ['dog', 'bark', "it's", 'a\\b'], distances: [1, 3, 1] },
    });
    expect(readClauseQuery("'dog' & 'bark'", false)).toEqual({ lexemes: ['dog', 'bark'] });
    expect(readClauseQuery("'dog'", true)).toEqual({ lexemes: ['dog'] });
    expect(readClauseQuery('', true)).toEqual({ lexemes: [] });
    for (const [q, phrase] of [
      ["'dog' & 'bark'", true],
      ["'dog' <-> 'bark'", false],
      ["( 'a' | 'b' ) <-> 'c'", true],
      ["'dog':*", false],
      ["'dog' | 'bark'", false],
      ["!'dog'", false],
    ] as const)
      expect(readClauseQuery(q, phrase), q).toBeNull();
  });
});
