import { type ChangeVersion, type Db, SearchAbandoned } from '@earshot/catalogue';
import { type SimilarityState, searchEngine, type TextIndex } from '@earshot/services';
import type { SearchEngine } from '../application/ports.ts';
import { sharedFilterSets, versionedFilterSets } from '../caches/filter-sets.ts';
import { requestSignal } from '../framework/http/request-signal.ts';
import { cachedSearchEngine } from './cached-search.ts';

/**
 * The services' search engine as the API serves it (text searches from the process's posting index
 * where it answers them): its filter id sets and answers kept until the catalogue changes (`changes`; filter sets a few seconds when it cannot tell), and every search
 * charged to the request it serves.
 */
export function servedSearchEngine(
  db: Db,
  state: SimilarityState,
  changes: ChangeVersion,
  budgetMs: number | undefined,
  textIndex?: TextIndex,
): SearchEngine {
  const engine = searchEngine(db, state, {
    budgetMs,
    textIndex,
    cacheFilterSets: (read) => versionedFilterSets(read, changes, sharedFilterSets(read)),
  });
  return withRequestSignal(outlivingAbandonment(cachedSearchEngine(engine, changes, () => state.version)));
}

/**
 * Searches carry the signal of the request being served, so the database work of a client that
 * hangs up is cancelled (see requestSignal).
 */
function withRequestSignal(engine: SearchEngine): SearchEngine {
  return {
    ...engine,
    text: (req) => engine.text({ ...req, signal: req.signal ?? requestSignal() }),
    similar: (req) => engine.similar({ ...req, signal: req.signal ?? requestSignal() }),
    content: (req) => engine.content({ ...req, signal: req.signal ?? requestSignal() }),
  };
}

/**
 * An engine whose searches shrug off another request's departure. A search's database work may be
 * shared by identical requests (the answer and filter caches), and it runs under the signal of the
 * request that started it: when that client goes away the work is cancelled, and the others, still
 * waiting, start it afresh under their own. A request that itself went away gets the error.
 */
function outlivingAbandonment(engine: SearchEngine): SearchEngine {
  async function again<T>(signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (err) {
        if (!(err instanceof SearchAbandoned) || signal?.aborted || attempt >= 3) throw err;
      }
    }
  }
  return {
    ...engine,
    text: (req) => again(req.signal, () => engine.text(req)),
    similar: (req) => again(req.signal, () => engine.similar(req)),
    content: (req) => again(req.signal, () => engine.content(req)),
  };
}
