import type { ChangeVersion } from '@earshot/catalogue';
import type { FindCredentialByKey } from '../auth/token-strategy.ts';

/**
 * Remembers lookups for `ttlMs` so a busy client does not cost a database round trip per request.
 * Credential changes move the catalogue's change version (the api_credentials trigger), which
 * empties the cache as soon as this process hears of it, so a revoked key is refused at once on
 * the embedded database and within a notification's delay on PostgreSQL; without a change feed,
 * within `ttlMs`.
 */
export function cachedCredentialLookup(
  find: FindCredentialByKey,
  ttlMs = 30_000,
  maxEntries = 10_000,
  changes?: ChangeVersion,
): FindCredentialByKey {
  const cache = new Map<string, { at: number; value: Awaited<ReturnType<FindCredentialByKey>> }>();
  let epoch = 0;
  changes?.onChange(() => {
    epoch++;
    cache.clear();
  });
  return async (key) => {
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && now - hit.at < ttlMs) return hit.value;
    const startedIn = epoch;
    const value = await find(key);
    // A lookup that overlapped a change may have read the old row: answer it, do not keep it.
    if (startedIn !== epoch) return value;
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(key, { at: now, value });
    return value;
  };
}
