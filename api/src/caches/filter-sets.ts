import type { ChangeVersion } from '@earshot/catalogue';
import { type FilterRequest, type FilterSets, filterNarrows } from '@earshot/services';
import { changeVersionNow, VersionedCache } from './answer-cache.ts';

// The search engine's filter id sets (filterSetsFromCatalogue in the services), shared between
// requests: the engine takes these through its `cacheFilterSets` option.

/**
 * Shares one database read between requests with the same filter: concurrent ones wait for the
 * read already under way, later ones reuse its answer for `ttlMs` (paging through a combined or
 * filtered similarity search repeats the filter on every page). Once an answer is older than
 * `ttlMs`, one request starts a fresh read and everyone keeps the old answer until it lands, so
 * a busy filter never makes 50 requests wait on the database at once; an answer older than
 * twice `ttlMs` is not served (the request waits). Visibility may thus lag by up to 2 × `ttlMs`.
 */
export function sharedFilterSets(load: FilterSets, ttlMs = 5_000, maxEntries = 32): FilterSets {
  interface Entry {
    at: number;
    ids: Promise<ReadonlySet<number> | undefined>;
    refreshing: boolean;
  }
  const cache = new Map<string, Entry>();

  function read(key: string, req: FilterRequest, now: number): Entry {
    const entry: Entry = { at: now, ids: load(req), refreshing: false };
    // A failed read is not remembered: the next request tries again.
    entry.ids.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
    return entry;
  }

  function store(key: string, entry: Entry): void {
    cache.delete(key);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(key, entry);
  }

  return (req) => {
    if (!filterNarrows(req)) return Promise.resolve(undefined);
    const key = filterKey(req);
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && now - hit.at < ttlMs) return hit.ids;
    if (hit && now - hit.at < 2 * ttlMs) {
      if (!hit.refreshing) {
        hit.refreshing = true;
        const fresh = read(key, req, now);
        fresh.ids.then(
          () => store(key, fresh),
          () => {
            hit.refreshing = false;
          },
        );
      }
      return hit.ids;
    }
    const entry = read(key, req, now);
    store(key, entry);
    return entry.ids;
  };
}

/**
 * Keeps each filter's ids until the catalogue changes (`changes`), so a busy filter costs one
 * database read per catalogue change instead of one per `ttlMs`, and a new, changed or deleted
 * sound is in (or out of) the very next search. Concurrent identical filters share one read.
 * When the change version cannot be known (no notifications), `fallback` answers.
 */
export function versionedFilterSets(
  load: FilterSets,
  changes: ChangeVersion,
  fallback: FilterSets,
  maxEntries = 64,
): FilterSets {
  const cache = new VersionedCache<ReadonlySet<number> | undefined>(maxEntries);
  return async (req) => {
    if (!filterNarrows(req)) return undefined;
    const version = await changeVersionNow(changes);
    if (version === undefined) return fallback(req);
    const key = filterKey(req);
    return cache.get(key, String(version), () => load(req));
  };
}

/** Requests that match the same sounds share a key (absent and empty parts are the same). */
function filterKey(req: FilterRequest): string {
  return JSON.stringify([req.query ?? '', req.filter ?? '', req.descriptorsFilter ?? '']);
}
