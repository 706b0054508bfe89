import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DatabaseFacets } from './facet-statement.ts';
import { exactPage, type SearchResult, scanPage } from './page-statements.ts';
import {
  cappedGroupedPage,
  cappedRankedPage,
  type PageWithoutCount,
  POPULAR_CANDIDATES,
} from './popular-candidates.ts';
import type { PreparedSearch } from './prepare.ts';
import type { QueryClause } from './query-parser.ts';
import { SEARCH_TABLE } from './search-schema.ts';
import { requiredTermsBound, type TermStats, termStats } from './side-counts.ts';
import { prepared } from './statement.ts';

/**
 * What earlier searches of a catalogue learnt about a clause: the lexeme of a word too common to
 * rank every match, or how far its scan must go to see all of them (FIRST_SCAN, or past the cap).
 * It only picks the plan to try first: every plan re-checks what it relies on (the df row, or
 * the scan's own count), so two searches of the same request give the same answer whatever it
 * holds.
 */
export type TermMemo = Map<string, string | number>;

/** Clauses remembered per catalogue; past this the oldest is forgotten. */
const MAX_REMEMBERED = 10_000;
/**
 * How many matches the first scan of a clause not seen before ranks at most. Most words have
 * fewer, and their search is that one statement; a word that has more costs this much ranking
 * (a few ms) before its df row decides the plan, once per process.
 */
export const FIRST_SCAN = 500;
const memoByCatalogue = new WeakMap<object, TermMemo>();

/** The term memo of one catalogue (keyed by its query builder, which lives as long as it). */
export function termMemoOf(catalogue: object): TermMemo {
  let memo = memoByCatalogue.get(catalogue);
  if (!memo) {
    memo = new Map();
    memoByCatalogue.set(catalogue, memo);
  }
  return memo;
}

export interface TermSearch {
  search: PreparedSearch;
  where: RawBuilder<boolean>;
  rank: RawBuilder<number>;
  offset: number;
  /** The query's only clause (singleTermClause). */
  clause: QueryClause;
  /** Above this many matches the page is ranked among the popular candidates only. */
  capAbove: number;
  memo: TermMemo;
  /** The facets asked for: the scans that see every match count them; counts come from them. */
  facets?: DatabaseFacets;
}

/**
 * A one-word (or one-phrase) relevance query without filters. Every match is ranked (page and
 * count from one scan) unless the word is one lexeme in more than `capAbove` sounds: then the page
 * is ranked among the popular candidates, and the counts come from its df row.
 * - A word remembered as common: its df row and the capped page, in parallel.
 * - Any other: one scan, stopped one past what the memo expects (FIRST_SCAN matches for a clause
 *   not seen before or seen with fewer; up to the cap for one seen with more). A scan that ends
 *   before its limit is the whole exact answer: for most words that is the only statement. A scan
 *   cut short is followed by the df row, which decides between the capped page and ranking every
 *   match.
 */
export async function termSearch(db: Kysely<any>, p: TermSearch): Promise<SearchResult> {
  const { search, where, rank, offset, clause, memo, facets } = p;
  if (!Number.isFinite(p.capAbove) || offset + search.limit > POPULAR_CANDIDATES) {
    return exactPage(db, search, where, rank, offset, facets);
  }
  const cap = p.capAbove;
  const key = `${clause.phrase ? '"' : ''}${clause.text}`;
  const known = memo.get(key);
  if (typeof known === 'string') {
    if (facets?.wanted) facets.counted().catch(() => undefined);
    const [stats, page] = await Promise.all([termStats(db, clause), popularPage(db, p, known)]);
    if (stats && stats.lexeme === known && stats.ndoc > cap) return counted(page, stats, search);
  }
  // Never past the cap: a scan that ends before its limit must mean the word is not common.
  const limit = Math.min(typeof known === 'number' ? known : FIRST_SCAN, cap) + 1;
  const { result, matches } = await scanPage(db, search, where, rank, offset, limit, facets);
  if (matches < limit) return remember(memo, key, limit - 1, result);
  const stats = await termStats(db, clause);
  if (stats && stats.ndoc > cap) {
    // No scan of every match follows: the facet statement counts the facets beside the page.
    if (facets?.wanted) facets.counted().catch(() => undefined);
    const page = await popularPage(db, p, stats.lexeme);
    return remember(memo, key, stats.lexeme, counted(page, stats, search));
  }
  // More matches than the scan took, yet not one common lexeme: rank them all.
  return remember(memo, key, cap, await exactPage(db, search, where, rank, offset, facets));
}

/** What the memo holds for a query of several clauses with more matches than the cap. */
const ABOVE_CAP = '*';

/**
 * A relevance query of several clauses (words, phrases, exclusions) without filters, ungrouped:
 * termSearch's plan where no df row holds the count. Every match is ranked unless the query has
 * more than `capAbove` matches; then the page is ranked among the popular candidates and the
 * exact count comes from a count statement, which reads every match but ranks none (43k matches
 * at 100k sounds: 150 ms ranked in full, 48 ms counted). A query remembered as above the cap runs its count and its capped page in
 * parallel; any other runs termSearch's cut scan first, so queries with few matches stay one
 * statement. A scan cut short asks the df rows next: when they bound the matches under the cap,
 * every match is ranked at once and the count statement (which would read them all a second
 * time) is not run.
 */
export async function clausesSearch(db: Kysely<any>, p: Omit<TermSearch, 'clause'>): Promise<SearchResult> {
  const { search, where, rank, offset, memo, facets } = p;
  if (!Number.isFinite(p.capAbove) || offset + search.limit > POPULAR_CANDIDATES) {
    return exactPage(db, search, where, rank, offset, facets);
  }
  const cap = p.capAbove;
  // What decides the matches: the clauses, and the weights (a field weighted 0 is not searched, a
  // number also matches that id while the id is weighted).
  const key = JSON.stringify([search.query.clauses.map((c) => [c.occur, c.phrase, c.text]), search.weights]);
  const known = memo.get(key);
  // Asked for facets, the facet statement counts the matches as it counts the facets.
  const count = async () => (facets ? (await facets.counted()).count : matchCount(db, where));
  if (known === ABOVE_CAP) {
    const [total, page] = await Promise.all([count(), cappedRankedPage(db, search, where, rank, offset)]);
    if (total > cap) return { ...page, count: total };
  }
  const limit = Math.min(typeof known === 'number' ? known : FIRST_SCAN, cap) + 1;
  const { result, matches } = await scanPage(db, search, where, rank, offset, limit, facets);
  if (matches < limit) return remember(memo, key, limit - 1, result);
  // A cut scan of a query not known to be above the cap: when the df rows bound its matches under
  // the cap, every match is ranked (the scan gives the exact count) without counting them first.
  if (limit - 1 < cap) {
    const bound = await requiredTermsBound(db, search);
    if (bound !== null && bound <= cap) {
      return remember(memo, key, cap, await exactPage(db, search, where, rank, offset, facets));
    }
  }
  const total = await count();
  if (total > cap) {
    const page = await cappedRankedPage(db, search, where, rank, offset);
    return remember(memo, key, ABOVE_CAP, { ...page, count: total });
  }
  return remember(memo, key, cap, await exactPage(db, search, where, rank, offset, facets));
}

/** The exact number of visible sounds `where` matches. */
async function matchCount(db: Kysely<any>, where: RawBuilder<boolean>): Promise<number> {
  const rows = await prepared(
    sql<{ n: number }>`select count(*)::int as n from ${sql.table(SEARCH_TABLE)} s where ${where}`,
  ).execute(db);
  return Number(rows.rows[0].n);
}

function remember(memo: TermMemo, key: string, plan: string | number, result: SearchResult): SearchResult {
  memo.delete(key);
  if (memo.size >= MAX_REMEMBERED) memo.delete(memo.keys().next().value as string);
  memo.set(key, plan);
  return result;
}

function popularPage(db: Kysely<any>, p: TermSearch, lexeme: string): Promise<PageWithoutCount> {
  return p.search.groupByPack
    ? cappedGroupedPage(db, p.search, p.where, p.rank, p.offset, lexeme)
    : cappedRankedPage(db, p.search, p.where, p.rank, p.offset);
}

/** The counts of a popularity-capped page: the df, or under group_by_pack its number of groups. */
function counted(page: PageWithoutCount, stats: TermStats, search: PreparedSearch): SearchResult {
  return { ...page, count: search.groupByPack ? stats.unpacked + stats.npacks : stats.ndoc };
}
