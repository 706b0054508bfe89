import type { ChangeVersion } from '@earshot/catalogue';
import type { BearerCheck, CheckBearerToken } from '../framework/auth/bearer-strategy.ts';

/**
 * Remembers valid bearer tokens so a busy application does not cost a database round trip per
 * request. Expiry is honoured at once (each entry keeps its token's expiry and is judged by the
 * same clock); revocation and replacement move the catalogue's change version (the oauth_tokens
 * trigger), which empties the cache as soon as this process hears of it: at once on the embedded
 * database (its counter is read as each request arrives), within a notification's delay on the
 * PostgreSQL server. `ttlMs` bounds an entry's life where there is no change feed at all.
 * Only valid answers are kept: an expired or invalid token goes to the database each time.
 */
export function cachedBearerCheck(
  check: CheckBearerToken,
  now: () => Date,
  changes: ChangeVersion | undefined,
  ttlMs = 30_000,
  maxEntries = 10_000,
): CheckBearerToken {
  const cache = new Map<string, { until: number; value: Extract<BearerCheck, { status: 'valid' }> }>();
  let epoch = 0;
  changes?.onChange(() => {
    epoch++;
    cache.clear();
  });
  return async (token) => {
    const at = now().getTime();
    const hit = cache.get(token);
    if (hit) {
      if (at >= hit.value.expiresAt) return { status: 'expired' };
      if (Date.now() < hit.until) return hit.value;
      cache.delete(token);
    }
    const startedIn = epoch;
    const value = await check(token);
    if (value.status === 'valid' && startedIn === epoch) {
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(token, { until: Date.now() + ttlMs, value });
    }
    return value;
  };
}
