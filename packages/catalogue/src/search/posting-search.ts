import type { Kysely } from 'kysely';
import { type ClauseTerms, clauseTerms } from './clause-terms.ts';
import type { PhraseChain } from './multi-lexeme-rank.ts';
import type { SearchResult } from './page-statements.ts';
import { postingFacets } from './posting-facets.ts';
import { type PostingIndexData, postingIndexAnswers, searchPostingIndex } from './posting-index.ts';
import type { PreparedSearch } from './prepare.ts';

/** Clauses whose terms a process remembers (the analyzer's answer never changes). */
const MAX_REMEMBERED_CLAUSES = 50_000;

/**
 * A process's memory of its clauses' terms, by clauseKey: null for a clause the index leaves to
 * PostgreSQL (clauseTerms).
 */
export type ClauseMemo = Map<string, ClauseTerms | null>;

/** A word's key is its text; a phrase's is quoted (a word never holds a `"`, the query parser ends it there). */
function clauseKey(c: { text: string; phrase: boolean }): string {
  return c.phrase ? `"${c.text}"` : c.text;
}

/**
 * A search answered from the posting index: the exact count, the page and its ts_rank scores from
 * memory (PostgreSQL is asked only for the terms of a clause the process has not met yet).
 * Returns undefined when the index does not answer this search (postingIndexAnswers, or a phrase
 * clauseTerms leaves to PostgreSQL).
 */
export async function postingSearch(
  db: Kysely<any>,
  index: PostingIndexData,
  search: PreparedSearch,
  memo: ClauseMemo,
): Promise<(SearchResult & { approximate?: boolean }) | undefined> {
  if (!postingIndexAnswers(search)) return undefined;
  const clauses = search.query.clauses;
  const keys = clauses.map(clauseKey);
  // Read before any await: another search may clear the memo meanwhile. undefined = not met yet.
  const terms: (ClauseTerms | null | undefined)[] = keys.map((k) => memo.get(k));
  const unknown = [
    ...new Map(clauses.flatMap((c, i) => (terms[i] === undefined ? [[keys[i], c] as const] : []))),
  ];
  if (unknown.length) {
    const answers = await clauseTerms(
      db,
      unknown.map(([, c]) => c),
    );
    const found = new Map(unknown.map(([key], i) => [key, answers[i]]));
    if (memo.size + found.size > MAX_REMEMBERED_CLAUSES) memo.clear();
    for (const [key, t] of found) memo.set(key, t);
    for (let i = 0; i < keys.length; i++) if (terms[i] === undefined) terms[i] = found.get(keys[i]);
  }
  if (terms.some((t) => !t)) return undefined;
  const phrases = terms.map((t) => t?.phrase).filter((p): p is PhraseChain => p !== undefined);
  const { matches, ...answer } = searchPostingIndex(
    index,
    search,
    terms.map((t) => t?.lexemes ?? []),
    phrases,
  );
  return matches && search.facets
    ? { ...answer, facets: postingFacets(index, matches, search.facets) }
    : answer;
}
