import { type Kysely, type RawBuilder, sql } from 'kysely';
import { compileFilter } from './compile-filter.ts';
import { compileTextQuery } from './compile-query.ts';
import type { SortOption } from './params.ts';
import { cappedGroupedPage, cappedRankedPage, POPULAR_CANDIDATES } from './popular-candidates.ts';
import { type PreparedSearch, prepareSearch, type SearchRequest } from './prepare.ts';
import { SEARCH_TABLE } from './search-schema.ts';
import { singleTermClause, type TermStats, tagDurationCount, termStats } from './side-counts.ts';
import { DEFAULT_SEARCH_TIMEOUT_MS, guardSearch, withStatementTimeout } from './statement.ts';

/** What searching needs of the catalogue: its query builder. */
export interface SearchCatalogue {
  readonly db: Kysely<any>;
}

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
 * Runs a text search over the visible sounds. Accepts the raw request (parsed here; bad input is
 * a SearchSyntaxError) or one already prepared. Database failures become SearchExecutionError.
 */
export interface SearchOptions {
  /** Statement timeout in ms on the PostgreSQL server (default 0 = none); past it the search fails with a 503 SearchExecutionError. */
  timeoutMs?: number;
  /**
   * A one-word relevance query matching more sounds than this is ranked among its
   * POPULAR_CANDIDATES most-downloaded matches only (docs/search.md, "Very common terms").
   * Default DEFAULT_POPULARITY_CAP_ABOVE; Infinity always ranks every match.
   */
  popularityCapAbove?: number;
}

/** Above ~20k matches exact ranking alone exceeds 50 ms at 1M sounds (reference/SEARCH.md §5). */
export const DEFAULT_POPULARITY_CAP_ABOVE = 20_000;

export async function searchSounds(
  catalogue: SearchCatalogue,
  request: SearchRequest | PreparedSearch,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const search = isPrepared(request) ? request : prepareSearch(request);
  const where = searchCondition(search);
  const rank = compileTextQuery(search.query, search.weights).rank;
  const offset = (search.page - 1) * search.pageSize;
  const timeout = options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
  const run = <T>(work: (db: Kysely<any>) => Promise<T>) => withStatementTimeout(catalogue.db, timeout, work);
  const capAbove = options.popularityCapAbove ?? DEFAULT_POPULARITY_CAP_ABOVE;
  return guardSearch(async () => {
    // A one-word query without filters: its exact count (and group count) is in search_term_df.
    const clause = search.filter ? null : singleTermClause(search);
    const stats: TermStats | null = clause ? await run((db) => termStats(db, clause)) : null;
    const capped =
      stats !== null &&
      clause !== null &&
      search.sort === 'score' &&
      stats.ndoc > capAbove &&
      offset + search.pageSize <= POPULAR_CANDIDATES;
    if (search.groupByPack) {
      if (capped) return run((db) => cappedGroupedPage(db, search, where, rank, offset, stats));
      return run((db) => groupedPage(db, search, where, rank, offset));
    }
    if (search.sort === 'score' && search.query.clauses.length) {
      if (capped) return run((db) => cappedRankedPage(db, search, where, rank, offset, stats.ndoc));
      return run((db) => rankedPage(db, search, where, rank, offset));
    }
    const page = sql<{ id: number; score: number }>`
      select s.id, ${rank}::float8 as score from ${sql.table(SEARCH_TABLE)} s
      where ${where}
      order by ${orderBy(search.sort, !search.query.clauses.length, 's')}
      limit ${search.pageSize} offset ${offset}`;
    const countFromSide = tagDurationCount(search);
    const count =
      countFromSide ??
      sql<{ n: number }>`select count(*)::int as n from ${sql.table(SEARCH_TABLE)} s where ${where}`;
    // Page and count on two connections at once: on the server they run in parallel.
    const [rows, total] = await Promise.all([
      run((db) => page.execute(db)),
      stats ? Promise.resolve({ rows: [{ n: stats.ndoc }] }) : run((db) => count.execute(db)),
    ]);
    return {
      count: total.rows[0].n,
      ids: rows.rows.map((r) => r.id),
      scores: rows.rows.map((r) => Number(r.score)),
    };
  });
}

/**
 * The ids of every visible sound that the request's query and filters match, ascending; for the
 * similarity engine's filtered and combined searches. `limit` bounds the answer.
 */
export async function matchingSoundIds(
  catalogue: SearchCatalogue,
  request: SearchRequest | PreparedSearch,
  limit = 1_000_000,
  options: SearchOptions = {},
): Promise<number[]> {
  const search = isPrepared(request) ? request : prepareSearch(request);
  const where = searchCondition(search);
  return guardSearch(async () => {
    const rows = await withStatementTimeout(
      catalogue.db,
      options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS,
      (db) =>
        sql<{ id: number }>`select s.id from ${sql.table(SEARCH_TABLE)} s where ${where}
        order by s.id limit ${limit}`.execute(db),
    );
    return rows.rows.map((r) => r.id);
  });
}

/**
 * The SQL condition (over the search document aliased `s`, keyed by `s.id`) that a prepared
 * search's query and filters amount to, for callers composing their own statement.
 */
export function searchCondition(search: PreparedSearch): RawBuilder<boolean> {
  const text = compileTextQuery(search.query, search.weights);
  const parts: RawBuilder<boolean>[] = [];
  if (!text.matchesAll) parts.push(text.match);
  if (search.filter) parts.push(compileFilter(search.filter));
  if (!parts.length) return sql<boolean>`true`;
  return sql<boolean>`${sql.join(parts, sql` and `)}`;
}

/**
 * Relevance order has to rank every match anyway, so one scan yields both the page and the exact
 * count (reference/SEARCH.md: cheaper than a second index-and-heap pass for the count).
 */
async function rankedPage(
  db: Kysely<any>,
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
): Promise<SearchResult> {
  const rows = await sql<{ id: number; score: number; total: number }>`
    with m as materialized (
      select s.id, ${rank}::float8 as score from ${sql.table(SEARCH_TABLE)} s where ${where}
    )
    select id, score, (select count(*) from m)::int as total from m
    order by score desc, id asc
    limit ${search.pageSize} offset ${offset}`.execute(db);
  let count = rows.rows[0]?.total;
  if (count === undefined) {
    const c = await sql<{
      n: number;
    }>`select count(*)::int as n from ${sql.table(SEARCH_TABLE)} s where ${where}`.execute(db);
    count = c.rows[0].n;
  }
  return { count, ids: rows.rows.map((r) => r.id), scores: rows.rows.map((r) => Number(r.score)) };
}

async function groupedPage(
  db: Kysely<any>,
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
): Promise<SearchResult> {
  const emptyQuery = !search.query.clauses.length;
  // One row per pack (sounds without a pack each stand alone), the best by the requested order.
  const rows = await sql<{
    id: number;
    score: number;
    pack_id: number | null;
    in_pack: number;
    total: number;
  }>`
    with m as materialized (
      select s.id, s.pack_id, s.duration, s.created, s.num_downloads, s.avg_rating, s.num_ratings,
             ${rank}::float8 as score
      from ${sql.table(SEARCH_TABLE)} s where ${where}
    ), r as (
      select m.*, row_number() over (partition by coalesce(m.pack_id, -m.id) order by ${orderBy(search.sort, emptyQuery, 'm')}) as rn,
             count(*) over (partition by coalesce(m.pack_id, -m.id))::int as in_pack
      from m
    )
    select id, score, pack_id, in_pack, count(*) over ()::int as total
    from r where rn = 1
    order by ${orderBy(search.sort, emptyQuery, 'r')}
    limit ${search.pageSize} offset ${offset}`.execute(db);
  let count = rows.rows[0]?.total;
  if (count === undefined) {
    const c = await sql<{ n: number }>`select count(distinct coalesce(s.pack_id, -s.id))::int as n
      from ${sql.table(SEARCH_TABLE)} s where ${where}`.execute(db);
    count = c.rows[0].n;
  }
  return {
    count,
    ids: rows.rows.map((r) => r.id),
    scores: rows.rows.map((r) => Number(r.score)),
    packGroups: rows.rows.map((r) => (r.pack_id === null ? null : { packId: r.pack_id, count: r.in_pack })),
  };
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

function isPrepared(r: SearchRequest | PreparedSearch): r is PreparedSearch {
  return typeof (r as PreparedSearch).query === 'object' && (r as PreparedSearch).query !== null;
}
