import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testBackends, useSearchCatalogue } from '../testing/index.ts';
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

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Our rank of `query` (lexemes) in the document whose tsvector text is `tsv`. */
function ourRank(tsv: string, query: readonly string[]): number {
  const found = new Map<string, { positions: number[]; bare: boolean }>();
  readTsvector(tsv, (lexeme, positions, bare) => found.set(lexeme, { positions: [...positions], bare }));
  const ordered = rankOrder(query);
  // A query of one distinct lexeme is ranked as one word (PostgreSQL falls back to calc_rank_or).
  if (ordered.length === 1) return singleLexemeRank(found.get(ordered[0])?.positions ?? []);
  const scratch = new RankScratch(ordered.length, DEFAULT_CLASS_WEIGHTS);
  const more = new GrowingUint16(16);
  for (const [slot, lexeme] of ordered.entries()) {
    const posting = found.get(lexeme);
    if (!posting) throw new Error(`${lexeme} is not in ${tsv}`);
    const first = posting.bare
      ? NO_POSITIONS
      : posting.positions.length === 1
        ? posting.positions[0]
        : MANY_POSITIONS + more.push(posting.positions.length);
    if (first >= MANY_POSITIONS) for (const p of posting.positions) more.push(p);
    scratch.load(slot, { first: Uint32Array.of(first), more: more.array() }, 0);
  }
  return scratch.rank();
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
    const random = seeded(33);
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
