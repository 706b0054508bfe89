import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { SortOption } from './params.ts';
import type { PreparedSearch } from './prepare.ts';
import { SEARCH_TABLE } from './search-schema.ts';

/** One result's pack, when results are grouped: the pack and how many of its sounds matched. */
export interface PackGroup {
  readonly packId: number;
  readonly count: number;
}

export interface SearchResult {
  /** Exact number of matching sounds (of groups, when grouped by pack). */
  readonly count: number;
  /** This page's sound ids, best first. */
  readonly ids: number[];
  /** Relevance of each id (0 when the query is empty). */
  readonly scores: number[];
  /** Per id, its pack group (null for a sound without a pack); only when grouped by pack. */
  readonly packGroups?: (PackGroup | null)[];
}

/**
 * A one-row statistics CTE (named t) that the statement starts with, and a gate over it: the
 * scan runs only when the gate holds. `limit` bounds the scan by what t guarantees whenever the
 * gate holds (see term-search.ts).
 */
export interface GatedStats {
  select: RawBuilder<unknown>;
  gate: RawBuilder<boolean>;
  limit?: RawBuilder<number>;
}

/** The pieces both page statements splice in for `stats` (all empty without it). */
function gatedParts(stats: GatedStats | undefined) {
  return {
    t: stats ? sql`t as materialized (${stats.select}),` : sql``,
    gate: stats ? sql`and ${stats.gate}` : sql``,
    limit: stats?.limit ? sql`limit ${stats.limit}` : sql``,
    head: stats ? sql`t.*,` : sql``,
    from: stats ? sql`t` : sql`(select 1) as one`,
  };
}

export interface RankedRow {
  id: number | null;
  score: number;
  total: number;
}

/**
 * The relevance-ordered page and the exact count from one materialised scan. With `stats` (a
 * one-row CTE named t) and `gate`, as groupedStatement: at least one row, carrying t's columns.
 */
export function rankedStatement(
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
  stats?: GatedStats,
): RawBuilder<RankedRow> {
  const { t, gate, limit, head, from } = gatedParts(stats);
  return sql<RankedRow>`
    with ${t} m as materialized (
      select s.id, ${rank}::float8 as score from ${sql.table(SEARCH_TABLE)} s where ${where} ${gate} ${limit}
    ), p as (
      select id, score from m order by score desc, id asc limit ${search.pageSize} offset ${offset}
    )
    select ${head} p.id, p.score, (select count(*) from m)::int as total
    from ${from} left join p on true
    order by p.score desc, p.id asc`;
}

export function rankedResult(rows: RankedRow[]): SearchResult {
  const page = rows.filter((r) => r.id !== null);
  return {
    count: Number(rows[0]?.total ?? 0),
    ids: page.map((r) => r.id as number),
    scores: page.map((r) => Number(r.score)),
  };
}

export interface GroupedRow {
  id: number | null;
  score: number;
  pack_id: number | null;
  in_pack: number;
  total: number;
}

/**
 * One row per pack (sounds without a pack each stand alone), the best by the requested order,
 * with the pack's number of matches and the number of groups. With `stats` (a one-row CTE named
 * t) and `gate`, the statement starts with t, scans only when the gate holds, and always returns
 * at least one row (id null when the page is empty) carrying t's columns.
 */
export function groupedStatement(
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
  stats?: GatedStats,
): RawBuilder<GroupedRow> {
  const emptyQuery = !search.query.clauses.length;
  const { t, gate, limit, head, from } = gatedParts(stats);
  return sql<GroupedRow>`
    with ${t} m as materialized (
      select s.id, s.pack_id, s.duration, s.created, s.num_downloads, s.avg_rating, s.num_ratings,
             ${rank}::float8 as score
      from ${sql.table(SEARCH_TABLE)} s where ${where} ${gate} ${limit}
    ), r as (
      select m.*, row_number() over (partition by coalesce(m.pack_id, -m.id) order by ${orderBy(search.sort, emptyQuery, 'm')}) as rn,
             count(*) over (partition by coalesce(m.pack_id, -m.id))::int as in_pack
      from m
    ), g as materialized (
      select * from r where rn = 1
    ), p as (
      select * from g order by ${orderBy(search.sort, emptyQuery, 'g')} limit ${search.pageSize} offset ${offset}
    )
    select ${head} p.id, p.score, p.pack_id, p.in_pack, (select count(*) from g)::int as total
    from ${from} left join p on true
    order by ${orderBy(search.sort, emptyQuery, 'p')}`;
}

export function groupedResult(rows: GroupedRow[]): SearchResult {
  const page = rows.filter((r) => r.id !== null);
  return {
    count: Number(rows[0]?.total ?? 0),
    ids: page.map((r) => r.id as number),
    scores: page.map((r) => Number(r.score)),
    packGroups: page.map((r) => (r.pack_id === null ? null : { packId: r.pack_id, count: r.in_pack })),
  };
}

/**
 * The exact page of a search that ranks (or groups) every match, grouped by pack when the search
 * asks for it, else in relevance order. Ranking has to visit every match anyway, so one scan
 * yields both the page and the exact count (reference/SEARCH.md: cheaper than a second
 * index-and-heap pass for the count).
 */
export async function exactPage(
  db: Kysely<any>,
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
): Promise<SearchResult> {
  return search.groupByPack
    ? groupedResult((await groupedStatement(search, where, rank, offset).execute(db)).rows)
    : rankedResult((await rankedStatement(search, where, rank, offset).execute(db)).rows);
}

/** ORDER BY for a sort option; ties fall back to the id, and rating ties to the number of ratings. */
export function orderBy(sort: SortOption, emptyQuery: boolean, alias: string): RawBuilder<unknown> {
  const c = (name: string) => sql.ref(`${alias}.${name}`);
  switch (sort) {
    case 'score':
      return emptyQuery ? sql`${c('id')} asc` : sql`score desc, ${c('id')} asc`;
    case 'duration_desc':
      return sql`${c('duration')} desc, ${c('id')} asc`;
    case 'duration_asc':
      return sql`${c('duration')} asc, ${c('id')} asc`;
    case 'created_desc':
      return sql`${c('created')} desc, ${c('id')} asc`;
    case 'created_asc':
      return sql`${c('created')} asc, ${c('id')} asc`;
    case 'downloads_desc':
      return sql`${c('num_downloads')} desc, ${c('id')} asc`;
    case 'downloads_asc':
      return sql`${c('num_downloads')} asc, ${c('id')} asc`;
    case 'rating_desc':
      return sql`${c('avg_rating')} desc, ${c('num_ratings')} desc, ${c('id')} asc`;
    case 'rating_asc':
      return sql`${c('avg_rating')} asc, ${c('num_ratings')} desc, ${c('id')} asc`;
  }
}
