import { type Kysely, sql } from 'kysely';
import { compileTextQuery } from './compile-query.ts';
import type { Facets } from './facets.ts';
import type { SearchResult } from './page-statements.ts';
import { postingFacets } from './posting-facets.ts';
import { type PostingIndexData, postingIndexAnswers, searchPostingIndex } from './posting-index.ts';
import { clauseLexemes } from './posting-index-load.ts';
import type { PreparedSearch } from './prepare.ts';
import { SEARCH_TABLE } from './search-schema.ts';
import { prepared } from './statement.ts';

/** Clause texts whose lexemes a process remembers (the analyzer's answer never changes). */
const MAX_REMEMBERED_CLAUSES = 50_000;

/**
 * A search answered from the posting index: the exact count and the page from memory, except
 * the order of a relevance page of several words, which PostgreSQL ranks exactly over the
 * candidates the index gives (ts_rank of several lexemes depends on their positions). Returns
 * undefined when the index does not answer this search (postingIndexAnswers).
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
  const answer = searchPostingIndex(
    index,
    search,
    texts.map((t) => lexemeMemo.get(t) ?? []),
  );
  const { rerank, scoresFromDatabase, matches, ...counted } = answer;
  // Counted now, from the index as it is before any statement below awaits (a catch-up may follow).
  const facets: Facets | undefined =
    matches && search.facets ? postingFacets(index, matches, search.facets) : undefined;
  const result = facets ? { ...counted, facets } : counted;
  const rank = compileTextQuery(search.query, search.weights).rank;
  if (scoresFromDatabase) {
    const rows = (
      await prepared(sql<{ id: number; score: number }>`
        select s.id, ${rank}::float8 as score from ${sql.table(SEARCH_TABLE)} s
        where s.id = any(${result.ids}::int[])`).execute(db)
    ).rows;
    const byId = new Map(rows.map((r) => [r.id, Number(r.score)]));
    return { ...result, scores: result.ids.map((id) => byId.get(id) ?? 0) };
  }
  if (!rerank) return result;
  const rows = (
    await prepared(sql<{ id: number; score: number }>`
      select s.id, ${rank}::float8 as score from ${sql.table(SEARCH_TABLE)} s
      where s.id = any(${Array.from(rerank)}::int[])
      order by score desc, s.id limit ${search.limit} offset ${search.offset}`).execute(db)
  ).rows;
  return {
    count: answer.count,
    ids: rows.map((r) => r.id),
    scores: rows.map((r) => Number(r.score)),
    ...(rerank.length < answer.count ? { approximate: true } : {}),
    ...(facets ? { facets } : {}),
  };
}
