import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { SearchResult } from './page-statements.ts';
import type { PreparedSearch } from './prepare.ts';
import { SEARCH_TABLE } from './search-schema.ts';
import { prepared } from './statement.ts';

/**
 * Very common terms (tens of thousands of matches at 1M sounds): ranking every match costs
 * ~1.1–1.6 µs each (reference/SEARCH.md §5), so the page is ranked among the most-downloaded
 * matches only, found by walking the downloads index. The count stays exact (search_term_df).
 * This is a documented relevance compromise (docs/search.md, "Very common terms").
 */
export const POPULAR_CANDIDATES = 1000;

/** The most-downloaded matches with their exact relevance: walking the downloads index stops after POPULAR_CANDIDATES. */
function candidates(where: RawBuilder<boolean>, rank: RawBuilder<number>): RawBuilder<unknown> {
  return sql`select s.id, s.pack_id, ${rank}::float8 as score from ${sql.table(SEARCH_TABLE)} s
    where ${where}
    order by s.num_downloads desc
    limit ${POPULAR_CANDIDATES}`;
}

/** The page ranked among the candidates; the caller supplies the count (the df). */
export type PageWithoutCount = Omit<SearchResult, 'count'>;

export async function cappedRankedPage(
  db: Kysely<any>,
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
): Promise<PageWithoutCount> {
  const rows = await prepared(sql<{ id: number; score: number }>`
    with c as materialized (${candidates(where, rank)})
    select id, score from c order by score desc, id asc
    limit ${search.limit} offset ${offset}`).execute(db);
  return { ids: rows.rows.map((r) => r.id), scores: rows.rows.map((r) => Number(r.score)) };
}

/**
 * group_by_pack over the candidates: each pack's best candidate stands for it. The per-pack
 * match counts are exact, read from search_term_pack for the query's `lexeme`; the caller
 * supplies the number of groups (search_term_df: ndoc_unpacked + npacks).
 */
export async function cappedGroupedPage(
  db: Kysely<any>,
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
  lexeme: string,
): Promise<PageWithoutCount> {
  const rows = await prepared(sql<{
    id: number;
    score: number;
    pack_id: number | null;
    in_pack: number | null;
  }>`
    with c as materialized (${candidates(where, rank)}),
    r as (
      select c.*, row_number() over (partition by coalesce(c.pack_id, -c.id) order by c.score desc, c.id) as rn
      from c
    )
    select r.id, r.score, r.pack_id, p.n as in_pack
    from r left join search_term_pack p on p.lexeme = ${lexeme} and p.pack_id = r.pack_id
    where r.rn = 1
    order by r.score desc, r.id asc
    limit ${search.limit} offset ${offset}`).execute(db);
  return {
    ids: rows.rows.map((r) => r.id),
    scores: rows.rows.map((r) => Number(r.score)),
    packGroups: rows.rows.map((r) =>
      r.pack_id === null ? null : { packId: r.pack_id, count: Number(r.in_pack ?? 1) },
    ),
  };
}
