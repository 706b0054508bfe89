import { type Kysely, type RawBuilder, sql } from 'kysely';
import {
  type DatabaseFacets,
  type FacetTuple,
  facetColumns,
  facetsOfMatches,
  shapeFacets,
} from './facet-statement.ts';
import type { FacetRequest, Facets } from './facets.ts';
import type { SortOption } from './params.ts';
import type { PreparedSearch } from './prepare.ts';
import { SEARCH_TABLE } from './search-schema.ts';
import { prepared } from './statement.ts';

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
  /** Per id, its distance to the sort target (null without one of its values); only when sorting by target values. */
  readonly distances?: (number | null)[];
  /** The requested facets' top values over every match (not only the page); only when asked for. */
  readonly facets?: Facets;
}

interface PageRow {
  id: number;
  score: number;
  /** Number of matches (at most the scan limit): the count of an ungrouped search. */
  matches: number;
  pack_id?: number | null;
  in_pack?: number;
  /** Number of groups: the count of a grouped search. */
  groups?: number;
  /** The facets asked for, counted over the scanned matches (every row holds them). */
  facets?: FacetTuple[] | null;
}

/** The columns a scan's matches `m` hold for the facets asked, beside `own` (none without facets). */
function withFacetColumns(own: string[], facets: FacetRequest | undefined): RawBuilder<unknown> {
  const columns = facets ? [...new Set([...own, ...facetColumns(facets)])] : own;
  return sql.join(columns.map((c) => sql.ref(`s.${c}`)));
}

/** The facets column of a scan's page rows, when facets are asked. */
function facetsColumn(facets: FacetRequest | undefined): RawBuilder<unknown> {
  return facets ? sql`, ${facetsOfMatches(facets)} as facets` : sql``;
}

/**
 * The relevance-ordered page from one materialized scan, each row carrying the number of
 * matches. An empty page carries nothing: see scanPage.
 */
function rankedStatement(
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
  scanLimit: number | undefined,
  facets?: FacetRequest,
): RawBuilder<PageRow> {
  return sql<PageRow>`
    with m as materialized (
      select ${withFacetColumns(['id'], facets)}, ${rank}::float8 as score
      from ${sql.table(SEARCH_TABLE)} s where ${where} ${limitClause(scanLimit)}
    )
    select id, score, (select count(*) from m)::int as matches ${facetsColumn(facets)}
    from m order by score desc, id asc limit ${search.limit} offset ${offset}`;
}

/**
 * One row per pack (sounds without a pack each stand alone), the best by the requested order,
 * with the pack's number of matches and the number of groups. With `scanLimit`, also the number
 * of matches the cut scan found (else 0: counting them again would cost a pass over all of them).
 */
function groupedStatement(
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
  scanLimit: number | undefined,
  facets?: FacetRequest,
): RawBuilder<PageRow> {
  const emptyQuery = !search.query.clauses.length;
  const matches = scanLimit === undefined ? sql`0` : sql`(select count(*) from m)::int`;
  const own = ['id', 'pack_id', 'duration', 'created', 'num_downloads', 'avg_rating', 'num_ratings'];
  return sql<PageRow>`
    with m as materialized (
      select ${withFacetColumns(own, facets)}, ${rank}::float8 as score
      from ${sql.table(SEARCH_TABLE)} s where ${where} ${limitClause(scanLimit)}
    ), r as (
      select m.*, row_number() over (partition by coalesce(m.pack_id, -m.id) order by ${orderBy(search.sort, emptyQuery, 'm')}) as rn,
             count(*) over (partition by coalesce(m.pack_id, -m.id))::int as in_pack
      from m
    ), g as materialized (
      select * from r where rn = 1
    )
    select g.id, g.score, g.pack_id, g.in_pack, (select count(*) from g)::int as groups, ${matches} as matches
      ${facetsColumn(facets)}
    from g order by ${orderBy(search.sort, emptyQuery, 'g')} limit ${search.limit} offset ${offset}`;
}

/** How many matches and groups a search has (a page past the last one says nothing itself). */
function countStatement(where: RawBuilder<boolean>, scanLimit: number | undefined) {
  return sql<{ matches: number; groups: number }>`
    select count(*)::int as matches, count(distinct coalesce(s.pack_id, -s.id))::int as groups
    from (select s.id, s.pack_id from ${sql.table(SEARCH_TABLE)} s where ${where} ${limitClause(scanLimit)}) s`;
}

function limitClause(scanLimit: number | undefined): RawBuilder<unknown> {
  return scanLimit === undefined ? sql`` : sql`limit ${scanLimit}::bigint`;
}

/** The page statement of a search that ranks (or groups) every match: see scanPage. */
function pageStatement(
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
  scanLimit?: number,
  facets?: FacetRequest,
): RawBuilder<PageRow> {
  const statement = search.groupByPack ? groupedStatement : rankedStatement;
  return statement(search, where, rank, offset, scanLimit, facets);
}

/** The search result of pageStatement's rows (counting separately when the page is past the end). */
async function pageResult(
  db: Kysely<any>,
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  offset: number,
  rows: PageRow[],
  scanLimit?: number,
  facets?: DatabaseFacets,
): Promise<{ result: SearchResult; matches: number }> {
  const counts =
    rows.length || offset === 0
      ? { matches: Number(rows[0]?.matches ?? 0), groups: Number(rows[0]?.groups ?? 0) }
      : (await prepared(countStatement(where, scanLimit)).execute(db)).rows[0];
  // The scan's facets are every match's when it was not cut short, and its rows carry them (an
  // empty first page: there are no matches).
  if (facets && (scanLimit === undefined || counts.matches < scanLimit) && (rows.length || offset === 0))
    facets.give(shapeFacets(facets.request, rows[0]?.facets ?? []));
  const result: SearchResult = {
    count: search.groupByPack ? counts.groups : counts.matches,
    ids: rows.map((r) => r.id),
    scores: rows.map((r) => Number(r.score)),
  };
  if (search.groupByPack) {
    const packGroups = rows.map((r) =>
      r.pack_id == null ? null : { packId: r.pack_id, count: Number(r.in_pack) },
    );
    return { result: { ...result, packGroups }, matches: counts.matches };
  }
  return { result, matches: counts.matches };
}

/**
 * The exact page of a search that ranks (or groups) every match, grouped by pack when the search
 * asks for it, else in relevance order. Ranking has to visit every match anyway, so one scan
 * yields both the page and the exact count (reference/SEARCH.md: cheaper than a second
 * index-and-heap pass for the count), and the facets when asked (`facets` is given them unless
 * the scan was cut short). A page past the last one is empty and carries no count: a second
 * statement counts. With `scanLimit` the scan stops after that many matches, and `matches` (at
 * most that many) tells a complete answer from a cut one.
 */
export async function scanPage(
  db: Kysely<any>,
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
  scanLimit?: number,
  facets?: DatabaseFacets,
): Promise<{ result: SearchResult; matches: number }> {
  const counting = facets?.wanted ? facets : undefined;
  const statement = pageStatement(search, where, rank, offset, scanLimit, counting?.request);
  const rows = (await prepared(statement).execute(db)).rows;
  return pageResult(db, search, where, offset, rows, scanLimit, counting);
}

/** The exact page of a search that ranks (or groups) every match (scanPage without a limit). */
export async function exactPage(
  db: Kysely<any>,
  search: PreparedSearch,
  where: RawBuilder<boolean>,
  rank: RawBuilder<number>,
  offset: number,
  facets?: DatabaseFacets,
): Promise<SearchResult> {
  return (await scanPage(db, search, where, rank, offset, undefined, facets)).result;
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
