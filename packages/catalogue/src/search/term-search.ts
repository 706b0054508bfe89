import { type Kysely, type RawBuilder, sql } from 'kysely';
import {
  exactPage,
  type GatedStats,
  type GroupedRow,
  groupedResult,
  groupedStatement,
  type RankedRow,
  rankedResult,
  rankedStatement,
  type SearchResult,
} from './page-statements.ts';
import { cappedGroupedPage, cappedRankedPage, POPULAR_CANDIDATES } from './popular-candidates.ts';
import type { PreparedSearch } from './prepare.ts';
import type { QueryClause } from './query-parser.ts';
import { type TermStatsRow, termStatsOf, termStatsSelect } from './side-counts.ts';

export interface TermSearch {
  search: PreparedSearch;
  where: RawBuilder<boolean>;
  rank: RawBuilder<number>;
  offset: number;
  /** The query's only clause (singleTermClause). */
  clause: QueryClause;
  /** Above this many matches the page is ranked among the popular candidates only. */
  capAbove: number;
}

/**
 * A one-word relevance query without filters. One statement looks the word up in
 * search_term_df and, unless the word is too common to rank every match, also ranks every match
 * (page and count from one scan): a rare word costs one round trip. A common word's statement
 * stops after the lookup (the scan sits behind a one-time filter on the looked-up count), and a
 * second one ranks the popular candidates, with counts from the df row.
 */
export async function termSearch(db: Kysely<any>, p: TermSearch): Promise<SearchResult> {
  const { search, where, rank, offset, clause } = p;
  const cap =
    Number.isFinite(p.capAbove) && offset + search.pageSize <= POPULAR_CANDIDATES ? p.capAbove : null;
  // A word of letters and digits only is one token, so at most one lexeme: when the gate holds
  // it is in at most `cap` sounds (its exact df), and the scan can say so with a LIMIT. The
  // planner then costs a common word's never-run scan at that size instead of JIT-compiling the
  // statement (~100 ms here). A LIMIT it cannot read (a subquery) would make it pick a seq scan.
  const oneToken = /^[\p{L}\p{N}]+$/u.test(clause.text);
  const stats: GatedStats = {
    select: termStatsSelect(clause),
    gate:
      cap === null
        ? sql<boolean>`true`
        : sql<boolean>`(select not coalesce(t.nodes = 1 and t.lexeme is not null and t.ndoc > ${cap}::bigint, false) from t)`,
    limit: cap !== null && oneToken ? sql<number>`${cap}::bigint` : undefined,
  };
  const first = search.groupByPack
    ? await groupedStatement(search, where, rank, offset, stats).execute(db)
    : await rankedStatement(search, where, rank, offset, stats).execute(db);
  const row = first.rows[0] as (TermStatsRow & (RankedRow | GroupedRow)) | undefined;
  const term = termStatsOf(row);
  if (stats.limit && Number(row?.nodes ?? 0) > 1) {
    // Not one lexeme after all: the LIMIT's guarantee does not hold, so run the scan without it.
    return exactPage(db, search, where, rank, offset);
  }
  if (cap === null || !term || term.ndoc <= cap) {
    return search.groupByPack
      ? groupedResult(first.rows as GroupedRow[])
      : rankedResult(first.rows as RankedRow[]);
  }
  if (search.groupByPack) return cappedGroupedPage(db, search, where, rank, offset, term);
  return cappedRankedPage(db, search, where, rank, offset, term.ndoc);
}
