import { type Kysely, type RawBuilder, sql } from 'kysely';
import { exactPage, type PageRow, pageResult, pageStatement, type SearchResult } from './page-statements.ts';
import {
  cappedGroupedPage,
  cappedRankedPage,
  type PageWithoutCount,
  POPULAR_CANDIDATES,
} from './popular-candidates.ts';
import type { PreparedSearch } from './prepare.ts';
import type { QueryClause } from './query-parser.ts';
import { type TermStats, type TermStatsRow, termStats, termStatsOf, termStatsSelect } from './side-counts.ts';
import { prepared } from './statement.ts';

/**
 * What earlier searches of a catalogue learnt about a clause: the lexeme of a word too common to
 * rank every match, or null for a clause whose matches can all be ranked. It only picks the plan
 * to try first: every plan re-checks what it relies on (the df row, or the scan's own count), so
 * two searches of the same request give the same answer whatever the memo holds.
 */
export type TermMemo = Map<string, string | null>;

/** Clauses remembered per catalogue; past this the oldest is forgotten (it costs one df lookup more). */
const MAX_REMEMBERED = 10_000;
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
}

/**
 * A one-word (or one-phrase) relevance query without filters. Every plan ranks every match
 * (page and count from one scan, stopped one past the cap) unless the word is one lexeme in
 * more than `capAbove` sounds: then the page is ranked among the popular candidates and the
 * counts come from its df row.
 * - A clause seen before as rankable: just that scan (one round trip, no lookup); a scan that
 *   reaches the cap means the word became common.
 * - A word seen before as common: its df row and the capped page, in parallel.
 * - A clause not seen before: one statement looks the df row up and scans only when it allows.
 */
export async function termSearch(db: Kysely<any>, p: TermSearch): Promise<SearchResult> {
  const { search, where, rank, offset, clause, memo } = p;
  if (!Number.isFinite(p.capAbove) || offset + search.pageSize > POPULAR_CANDIDATES) {
    return exactPage(db, search, where, rank, offset);
  }
  const cap = p.capAbove;
  const key = `${clause.phrase ? '"' : ''}${clause.text}`;
  const known = memo.get(key);
  if (typeof known === 'string') {
    const [stats, page] = await Promise.all([termStats(db, clause), popularPage(db, p, known)]);
    if (stats && stats.lexeme === known && stats.ndoc > cap) return counted(page, stats, search);
  }
  if (known !== undefined) {
    const rows = (await prepared(pageStatement(search, where, rank, offset, cap + 1)).execute(db)).rows;
    const { result, matches } = await pageResult(db, search, where, offset, rows, cap + 1);
    if (matches <= cap) return remember(memo, key, null, result);
    const stats = await termStats(db, clause);
    if (!stats || stats.ndoc <= cap)
      return remember(memo, key, null, exactPage(db, search, where, rank, offset));
    return remember(
      memo,
      key,
      stats.lexeme,
      popularPage(db, p, stats.lexeme).then((r) => counted(r, stats, search)),
    );
  }
  const rows = (await prepared(gatedStatement(p, cap)).execute(db)).rows;
  const stats = termStatsOf(rows[0]);
  if (stats && stats.ndoc > cap) {
    return remember(
      memo,
      key,
      stats.lexeme,
      popularPage(db, p, stats.lexeme).then((r) => counted(r, stats, search)),
    );
  }
  const pageRows = rows.filter((r) => r.id !== null) as PageRow[];
  const { result, matches } = await pageResult(db, search, where, offset, pageRows, cap + 1);
  // More than `cap` matches yet not one common lexeme (a clause of several words): rank them all.
  return remember(memo, key, null, matches <= cap ? result : exactPage(db, search, where, rank, offset));
}

async function remember(
  memo: TermMemo,
  key: string,
  lexeme: string | null,
  result: SearchResult | Promise<SearchResult>,
): Promise<SearchResult> {
  memo.delete(key);
  if (memo.size >= MAX_REMEMBERED) memo.delete(memo.keys().next().value as string);
  memo.set(key, lexeme);
  return result;
}

/**
 * The df row of the clause (t) and the scan, which runs only when t allows: one round trip for a
 * word not seen before. The row always comes (page columns null when the page is empty or the
 * scan did not run). The scan's LIMIT also lets the planner cost a never-run scan small instead
 * of JIT-compiling it (~100 ms here).
 */
function gatedStatement(p: TermSearch, cap: number): RawBuilder<TermStatsRow & Partial<PageRow>> {
  const gate = sql<boolean>`(select not coalesce(t.nodes = 1 and t.lexeme is not null and t.ndoc > ${cap}::bigint, false) from t)`;
  const page = pageStatement(p.search, sql<boolean>`(${p.where}) and ${gate}`, p.rank, p.offset, cap + 1);
  return sql`with t as materialized (${termStatsSelect(p.clause)}), page as (${page})
    select t.*, page.* from t left join page on true order by page.score desc, page.id asc`;
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
