import type { Kysely } from 'kysely';
import { outsideBudget } from '../connection/statement-budget.ts';
import { type ClauseTerms, clauseTerms } from './clause-terms.ts';
import type { PhraseChain } from './multi-lexeme-rank.ts';
import type { SearchResult } from './page-statements.ts';
import { postingFacets } from './posting-facets.ts';
import { type PostingIndexData, postingIndexAnswers, searchPostingIndex } from './posting-index.ts';
import type { PreparedSearch } from './prepare.ts';
import type { QueryClause } from './query-parser.ts';

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

type Clause = Pick<QueryClause, 'text' | 'phrase'>;

/**
 * The statements asking PostgreSQL for the terms of clauses not met yet, shared by the searches of
 * one memo: while one is under way, the clauses other searches ask for wait for the next, which asks
 * for all of them at once. A process that has just started meets most words for the first time,
 * and one statement per search then cost as much of it as reading the page's records.
 */
class SharedClauseReads {
  #running = false;
  #queued = new Map<string, { clause: Clause; answer: Deferred }>();

  constructor(private readonly db: Kysely<any>) {}

  /** The terms of each clause (by key), read with the clauses other searches are waiting for. */
  read(clauses: readonly (readonly [string, Clause])[]): Promise<(ClauseTerms | null)[]> {
    const answers = clauses.map(([key, clause]) => {
      let queued = this.#queued.get(key);
      if (!queued) {
        queued = { clause, answer: deferred() };
        this.#queued.set(key, queued);
      }
      return queued.answer.promise;
    });
    if (!this.#running) void this.#flush();
    return Promise.all(answers);
  }

  async #flush(): Promise<void> {
    this.#running = true;
    while (this.#queued.size) {
      const batch = [...this.#queued.values()];
      this.#queued = new Map();
      try {
        // Charged to no search's budget: the statement is several searches', and a few words long.
        const answers = await outsideBudget(() =>
          clauseTerms(
            this.db,
            batch.map((q) => q.clause),
          ),
        );
        for (const [i, q] of batch.entries()) q.answer.resolve(answers[i]);
      } catch (err) {
        for (const q of batch) q.answer.reject(err);
      }
    }
    this.#running = false;
  }
}

interface Deferred {
  promise: Promise<ClauseTerms | null>;
  resolve(terms: ClauseTerms | null): void;
  reject(err: unknown): void;
}

function deferred(): Deferred {
  let resolve: Deferred['resolve'] = () => {};
  let reject: Deferred['reject'] = () => {};
  const promise = new Promise<ClauseTerms | null>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // A search that failed before awaiting it leaves nobody to observe a rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

const sharedReads = new WeakMap<ClauseMemo, SharedClauseReads>();

function sharedReadsOf(memo: ClauseMemo, db: Kysely<any>): SharedClauseReads {
  let reads = sharedReads.get(memo);
  if (!reads) {
    reads = new SharedClauseReads(db);
    sharedReads.set(memo, reads);
  }
  return reads;
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
    const answers = await sharedReadsOf(memo, db).read(unknown);
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
