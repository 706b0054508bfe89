import { type Kysely, type RawBuilder, sql } from 'kysely';
import { compileFilter } from './compile-filter.ts';
import { compileTextQuery } from './compile-query.ts';
import { DatabaseFacets } from './facet-statement.ts';
import { exactPage, orderBy, type SearchResult } from './page-statements.ts';
import { phrasePrefilter } from './phrase-prefilter.ts';
import { isPrepared, type PreparedSearch, prepareSearch, type SearchRequest } from './prepare.ts';
import { SEARCH_TABLE } from './search-schema.ts';
import { requiredTermsBound, sideCount, singleTermClause, termStats } from './side-counts.ts';
import { targetIndexPage, targetPage } from './sort-target.ts';
import { limitedSearch, prepared, type SearchLimits } from './statement.ts';
import { clausesSearch, termMemoOf, termSearch } from './term-search.ts';

export type { PackGroup, SearchResult } from './page-statements.ts';

/** What searching needs of the catalogue: its query builder. */
export interface SearchCatalogue {
  readonly db: Kysely<any>;
}

/**
 * Runs a text search over the visible sounds. Accepts the raw request (parsed here; bad input is
 * a SearchSyntaxError) or one already prepared. Database failures become SearchExecutionError.
 */
export interface SearchOptions extends SearchLimits {
  /**
   * A one-word relevance query matching more sounds than this is ranked among its
   * POPULAR_CANDIDATES most-downloaded matches only (docs/search.md, "Very common terms").
   * Default DEFAULT_POPULARITY_CAP_ABOVE; Infinity always ranks every match.
   */
  popularityCapAbove?: number;
  /**
   * A search in another order that has at most this many matches takes page and count from one
   * scan (sortedScan); default SORTED_SCAN.
   */
  sortedScanUpTo?: number;
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
  const db = catalogue.db;
  return limitedSearch(options, async () => {
    if (!search.facets) return pageAndCount(catalogue, search, where, options);
    const facets = new DatabaseFacets(db, where, search.facets);
    // A search that ranks every match counts the facets in that scan. Any other runs the facet
    // statement on a connection of its own beside its page from the start, and takes its count
    // from it when it needs one. (Its failure is the search's, when awaited below.)
    if (!ranksEveryMatch(search)) facets.counted().catch(() => undefined);
    const result = await pageAndCount(catalogue, search, where, options, facets);
    return { ...result, facets: await facets.facets() };
  });
}

/** Whether pageAndCount ranks (or groups) every match in one scan, unless the matches are too many. */
function ranksEveryMatch(search: PreparedSearch): boolean {
  return (
    !search.sortTarget && (search.groupByPack || (search.sort === 'score' && search.query.clauses.length > 0))
  );
}

/** searchSounds' page and exact count, by the plans above. */
async function pageAndCount(
  catalogue: SearchCatalogue,
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  options: SearchOptions,
  facets?: DatabaseFacets,
): Promise<SearchResult> {
  const rank = compileTextQuery(search.query, search.weights).rank;
  const { offset } = search;
  const db = catalogue.db;
  // The number of matches, read by counting them all: the facet statement's when facets are asked.
  const countAll = async (): Promise<number> =>
    facets ? (await facets.counted()).count : (await prepared(plainCount(where)).execute(db)).rows[0].n;
  if (search.sortTarget) {
    const matchesAll = !search.query.clauses.length && !search.filter;
    const page =
      (matchesAll && targetIndexPage(search.sortTarget, search.limit, offset)) ||
      targetPage(search.sortTarget, where, search.query.clauses.length ? rank : null, search.limit, offset);
    // Page and count on two connections at once, as below.
    const [rows, total] = await Promise.all([prepared(page).execute(db), countAll()]);
    return {
      count: total,
      ids: rows.rows.map((r) => r.id),
      scores: rows.rows.map((r) => Number(r.score)),
      distances: rows.rows.map((r) => (r.distance === null ? null : Number(r.distance))),
    };
  }
  // A one-word query without filters: its exact count (and group count) is in search_term_df.
  const clause = search.filter ? null : singleTermClause(search);
  if (clause && search.sort === 'score') {
    const capAbove = options.popularityCapAbove ?? DEFAULT_POPULARITY_CAP_ABOVE;
    const memo = termMemoOf(catalogue.db);
    return termSearch(db, { search, where, rank, offset, clause, capAbove, memo, facets });
  }
  // Several clauses (or one that is not a single word), ungrouped and unfiltered: the same cap,
  // counted by a statement.
  if (
    !search.filter &&
    !search.groupByPack &&
    search.sort === 'score' &&
    search.query.clauses.some((c) => c.occur === 'must')
  ) {
    const capAbove = options.popularityCapAbove ?? DEFAULT_POPULARITY_CAP_ABOVE;
    const memo = termMemoOf(catalogue.db);
    return clausesSearch(db, { search, where, rank, offset, capAbove, memo, facets });
  }
  if (search.groupByPack || (search.sort === 'score' && search.query.clauses.length)) {
    return exactPage(db, search, where, rank, offset, facets);
  }
  // A text query whose count no df row or side table answers: page and count from one scan
  // when the df rows of its words bound its matches under SORTED_SCAN; else the order's B-tree
  // gives the page while a count statement counts, in parallel.
  const upTo = options.sortedScanUpTo ?? SORTED_SCAN;
  const bound = search.query.clauses.length && !clause ? await requiredTermsBound(db, search) : null;
  if (bound !== null && bound <= upTo) {
    const scan = sortedScan(search, where, rank, offset, upTo + 1);
    const { rows } = await prepared(scan).execute(db);
    if (rows.length && Number(rows[0].matches) <= upTo) {
      return {
        count: Number(rows[0].matches),
        ids: rows.map((r) => r.id),
        scores: rows.map((r) => Number(r.score)),
      };
    }
    if (!rows.length && offset === 0) return { count: 0, ids: [], scores: [] };
  }
  const page = prepared(sortedPage(search, where, rank, offset));
  const count = async (): Promise<number> => {
    if (facets) return countAll();
    if (clause) {
      const stats = await termStats(db, clause);
      if (stats) return stats.ndoc;
    }
    return (await prepared(sideCount(search) ?? plainCount(where)).execute(db)).rows[0].n;
  };
  // Page and count on two connections at once: on the server they run in parallel.
  const [rows, total] = await Promise.all([page.execute(db), count()]);
  return {
    count: total,
    ids: rows.rows.map((r) => r.id),
    scores: rows.rows.map((r) => Number(r.score)),
  };
}

/**
 * The page of a search in another order than relevance (or of an empty query), from the order's
 * B-tree or a top-N sort. The relevance of the page's rows is computed outside the ordered
 * selection: written beside it, ts_rank runs on every match that enters a top-N sort (the planner
 * keeps a cheap-looking function below the sort), about 1–1.5 µs a match (reference/SEARCH.md)
 * for the 15 that are kept.
 */
function sortedPage(
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
): RawBuilder<{ id: number; score: number }> {
  const emptyQuery = !search.query.clauses.length;
  const table = sql.table(SEARCH_TABLE);
  const order = orderBy(search.sort, emptyQuery, 's');
  if (emptyQuery) {
    return sql`select s.id, 0::float8 as score from ${table} s where ${where}
      order by ${order} limit ${search.limit} offset ${offset}`;
  }
  // The inner rows carry what the rank and the order read (`rank` is written over `s`).
  return sql`select s.id, ${rank}::float8 as score from (
      select s.id, s.tsv, s.duration, s.created, s.num_downloads, s.avg_rating, s.num_ratings
      from ${table} s where ${where}
      order by ${order} limit ${search.limit} offset ${offset}) s
    order by ${order}`;
}

/** The exact number of visible sounds `where` matches, every one of them read. */
function plainCount(where: RawBuilder<boolean>): RawBuilder<{ n: number }> {
  return sql<{ n: number }>`select count(*)::int as n from ${sql.table(SEARCH_TABLE)} s where ${where}`;
}

/**
 * Most matches a sorted search collects to take page and count from one scan (sortedScan). Past a
 * few thousand, keeping every match costs more than the order's B-tree page and a count in
 * parallel (a word in every sound with a filter: 60–80 ms against 40–50 ms at 100k sounds), and
 * a scan cut short to find out cost the common words 5–15 ms (its pages read past the shared
 * buffers): the df rows decide instead.
 */
export const SORTED_SCAN = 2000;

/**
 * The page in another order than relevance and the number of matches from one scan stopped after
 * `scanLimit` matches (fewer: the exact count): the matches with the order's columns, then the
 * page's rows ranked. Collecting the matches first also keeps the planner from walking the
 * order's B-tree for a word rarer than it thinks: with 13 matches and a filter on half the
 * sounds, that walk read every sound of the filter (58 ms at 10k sounds, against a few ms here).
 */
function sortedScan(
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
  scanLimit: number,
): RawBuilder<{ id: number; score: number; matches: number }> {
  const table = sql.table(SEARCH_TABLE);
  return sql`with m as materialized (
      select s.id, s.duration, s.created, s.num_downloads, s.avg_rating, s.num_ratings
      from ${table} s where ${where} limit ${scanLimit}::bigint
    ), p as (
      select m.* from m order by ${orderBy(search.sort, false, 'm')} limit ${search.limit} offset ${offset}
    )
    select s.id, ${rank}::float8 as score, (select count(*) from m)::int as matches
    from p join ${table} s on s.id = p.id
    order by ${orderBy(search.sort, false, 'p')}`;
}

/**
 * The ids of every visible sound that the request's query and filters match, ascending. `limit`
 * bounds the answer. The similarity engine reads the same ids as one row (`matchingSoundIdSet`).
 */
export async function matchingSoundIds(
  catalogue: SearchCatalogue,
  request: SearchRequest | PreparedSearch,
  limit = 1_000_000,
  options: SearchOptions = {},
): Promise<number[]> {
  const search = isPrepared(request) ? request : prepareSearch(request);
  const where = searchCondition(search);
  return limitedSearch(options, async () => {
    const rows = await prepared(firstMatchingIds(where, limit)).execute(catalogue.db);
    return rows.rows.map((r) => r.id);
  });
}

/** The first `limit` ids, ascending, of the visible sounds `where` matches: both id reads' statement. */
export function firstMatchingIds(where: RawBuilder<boolean>, limit: number): RawBuilder<{ id: number }> {
  const table = sql.table(SEARCH_TABLE);
  return sql<{ id: number }>`select s.id from ${table} s where ${where} order by s.id limit ${limit}`;
}

/**
 * The SQL condition (over the search document aliased `s`, keyed by `s.id`) that a prepared
 * search's query and filters amount to, for callers composing their own statement.
 */
export function searchCondition(search: PreparedSearch): RawBuilder<boolean> {
  const text = compileTextQuery(search.query, search.weights);
  const parts: RawBuilder<boolean>[] = [];
  const phrases = phrasePrefilter(search.query);
  if (phrases) parts.push(phrases);
  if (!text.matchesAll) parts.push(text.match);
  if (search.filter) parts.push(compileFilter(search.filter));
  if (!parts.length) return sql<boolean>`true`;
  return sql<boolean>`${sql.join(parts, sql` and `)}`;
}
