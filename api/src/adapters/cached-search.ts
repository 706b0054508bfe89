import { type ChangeVersion, MAX_PAGE_SIZE } from '@earshot/catalogue';
import type {
  ContentSearchRequest,
  Hits,
  SearchEngine,
  SimilarityRequest,
  TextSearchRequest,
} from '../application/ports.ts';
import { changeVersionNow, VersionedCache } from '../caches/answer-cache.ts';

/**
 * The search engine behind a query-result cache, as search servers keep one: each answer (ids,
 * scores, count of one page) is kept by its normalized request until the catalogue changes (and,
 * for similarity and content search, until the in-memory similarity state changes). Identical
 * concurrent requests share one computation. Without a change version (no notifications) every
 * request goes to the engine. A request for more than a page (a cursor walk reading a whole result
 * once) is not kept: it would hold up to a million hits.
 */
export function cachedSearchEngine(
  engine: SearchEngine,
  changes: ChangeVersion,
  /** Version of what the similarity and content answers are computed from besides the catalogue. */
  stateVersion: () => string,
  maxEntries = 5_000,
): SearchEngine {
  const cache = new VersionedCache<Hits | undefined>(maxEntries);

  async function cached(
    key: string,
    withState: boolean,
    compute: () => Promise<Hits | undefined>,
  ): Promise<Hits | undefined> {
    const version = await changeVersionNow(changes);
    if (version === undefined) return compute();
    const full = withState ? `${version}:${stateVersion()}` : String(version);
    return cache.get(key, full, compute);
  }

  return {
    ...engine,
    async text(req: TextSearchRequest): Promise<Hits> {
      if (req.limit > MAX_PAGE_SIZE) return engine.text(req);
      const key = JSON.stringify([
        't',
        req.query,
        req.filter ?? null,
        req.sort ?? null,
        req.weights ?? null,
        req.groupByPack,
        req.offset,
        req.limit,
        // The same search with facets is another answer (it carries them).
        ...(req.facets ? [req.facets] : []),
      ]);
      return (await cached(key, false, () => engine.text(req))) as Hits;
    },
    similar(req: SimilarityRequest): Promise<Hits | undefined> {
      if (req.limit > MAX_PAGE_SIZE) return engine.similar(req);
      const key = JSON.stringify([
        's',
        req.space,
        'soundId' in req.target ? req.target.soundId : req.target.vector,
        req.filter ?? null,
        req.offset,
        req.limit,
      ]);
      return cached(key, true, () => engine.similar(req));
    },
    async content(req: ContentSearchRequest): Promise<Hits> {
      // An example (an uploaded analysis or clip) is rarely sent twice: not worth a key of its size.
      if (req.example || req.limit > MAX_PAGE_SIZE) return engine.content(req);
      const key = JSON.stringify([
        'c',
        req.target ?? null,
        req.descriptorsFilter ?? null,
        req.query ?? null,
        req.filter ?? null,
        req.offset,
        req.limit,
      ]);
      return (await cached(key, true, () => engine.content(req))) as Hits;
    },
  };
}
