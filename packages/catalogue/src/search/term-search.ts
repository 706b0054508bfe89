import type { Kysely, RawBuilder } from 'kysely';
import { exactPage, type SearchResult, scanPage } from './page-statements.ts';
import {
  cappedGroupedPage,
  cappedRankedPage,
  type PageWithoutCount,
  POPULAR_CANDIDATES,
} from './popular-candidates.ts';
import type { PreparedSearch } from './prepare.ts';
import type { QueryClause } from './query-parser.ts';
import { type TermStats, termStats } from './side-counts.ts';

/**
 * Clauses that a search of this catalogue found too common to rank every match, with the lexeme
 * each reduces to. It only ever picks the plan to try first: every use re-reads the word's count,
 * and a word that is no longer common is searched exactly again. So two searches of the same
 * request give the same answer whatever it holds.
 */
export type CommonTerms = Map<string, string>;

/** Enough for every common word of a catalogue many times over (a few thousand lexemes pass 20k documents at 1M sounds). */
const MAX_COMMON_TERMS = 10_000;
const commonTermsByCatalogue = new WeakMap<object, CommonTerms>();

/** The common-term memo of one catalogue (keyed by its query builder, which lives as long as it). */
export function commonTermsOf(catalogue: object): CommonTerms {
  let memo = commonTermsByCatalogue.get(catalogue);
  if (!memo) {
    memo = new Map();
    commonTermsByCatalogue.set(catalogue, memo);
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
  commonTerms: CommonTerms;
}

/**
 * A one-word (or one-phrase) relevance query without filters.
 * - A word known to be common: its df row and the page ranked among the popular candidates, in
 *   parallel; the df row confirms the plan (else the word is searched as below).
 * - Any other: one statement ranks every match, page and count from one scan, cut one past the
 *   cap. Fewer found is the whole exact answer: a rare word costs one round trip and no lookup.
 *   A cut scan means a common word (or a clause of several lexemes, ranked exactly).
 */
export async function termSearch(db: Kysely<any>, p: TermSearch): Promise<SearchResult> {
  const { search, where, rank, offset, clause, commonTerms } = p;
  if (!Number.isFinite(p.capAbove) || offset + search.pageSize > POPULAR_CANDIDATES) {
    return exactPage(db, search, where, rank, offset);
  }
  const cap = p.capAbove;
  const key = `${clause.phrase ? '"' : ''}${clause.text}`;
  const knownLexeme = commonTerms.get(key);
  if (knownLexeme !== undefined) {
    const [stats, page] = await Promise.all([termStats(db, clause), popularPage(db, p, knownLexeme)]);
    if (stats && stats.lexeme === knownLexeme && stats.ndoc > cap) return counted(page, stats, search);
    commonTerms.delete(key);
  }
  const found = await exactPageUpTo(db, p, cap + 1);
  if (found) return found;
  const stats = await termStats(db, clause);
  // More than `cap` matches but not one lexeme (or fewer by now): rank every match.
  if (!stats || stats.ndoc <= cap) return exactPage(db, search, where, rank, offset);
  if (commonTerms.size >= MAX_COMMON_TERMS) commonTerms.delete(commonTerms.keys().next().value as string);
  commonTerms.set(key, stats.lexeme);
  return counted(await popularPage(db, p, stats.lexeme), stats, search);
}

/** The exact page when the scan, stopped after `scanLimit` matches, found fewer; else null. */
async function exactPageUpTo(
  db: Kysely<any>,
  p: TermSearch,
  scanLimit: number,
): Promise<SearchResult | null> {
  const { result, matches } = await scanPage(db, p.search, p.where, p.rank, p.offset, scanLimit);
  return matches < scanLimit ? result : null;
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
