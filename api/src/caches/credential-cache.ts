import type { FindCredentialByKey } from '../auth/token-strategy.ts';

/**
 * Remembers lookups for `ttlMs` so a busy client does not cost a database round trip per request.
 * A revoked or suspended key therefore stops working within `ttlMs`.
 */
export function cachedCredentialLookup(
  find: FindCredentialByKey,
  ttlMs = 30_000,
  maxEntries = 10_000,
): FindCredentialByKey {
  const cache = new Map<string, { at: number; value: Awaited<ReturnType<FindCredentialByKey>> }>();
  return async (key) => {
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && now - hit.at < ttlMs) return hit.value;
    const value = await find(key);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(key, { at: now, value });
    return value;
  };
}
