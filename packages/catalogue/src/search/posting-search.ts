import type { Kysely } from 'kysely';
import type { SearchResult } from './page-statements.ts';
import { postingFacets } from './posting-facets.ts';
import { type PostingIndexData, postingIndexAnswers, searchPostingIndex } from './posting-index.ts';
import { clauseLexemes } from './posting-index-load.ts';
import type { PreparedSearch } from './prepare.ts';

/** Clause texts whose lexemes a process remembers (the analyzer's answer never changes). */
const MAX_REMEMBERED_CLAUSES = 50_000;

/**
 * A search answered from the posting index: the exact count, the page and its ts_rank scores from
 * memory (PostgreSQL is asked only for the lexemes of a clause text the process has not met yet).
 * Returns undefined when the index does not answer this search (postingIndexAnswers).
 */
export async function postingSearch(
  db: Kysely<any>,
  index: PostingIndexData,
  search: PreparedSearch,
  lexemeMemo: Map<string, string[]>,
): Promise<(SearchResult & { approximate?: boolean }) | undefined> {
  if (!postingIndexAnswers(search)) return undefined;
  const texts = search.query.clauses.map((c) => c.text);
  const unknown = [...new Set(texts.filter((t) => !lexemeMemo.has(t)))];
  if (unknown.length) {
    const found = await clauseLexemes(db, unknown);
    if (lexemeMemo.size + unknown.length > MAX_REMEMBERED_CLAUSES) lexemeMemo.clear();
    for (const [i, t] of unknown.entries()) lexemeMemo.set(t, found[i]);
  }
  const { matches, ...answer } = searchPostingIndex(
    index,
    search,
    texts.map((t) => lexemeMemo.get(t) ?? []),
  );
  return matches && search.facets
    ? { ...answer, facets: postingFacets(index, matches, search.facets) }
    : answer;
}
