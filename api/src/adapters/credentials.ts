import type { Database } from '@earshot/catalogue';
import type { Kysely } from 'kysely';
import type { FindCredentialByKey } from '../auth/token-strategy.ts';

/** Finds an API credential by its key (the client secret) for the token strategy. */
export function credentialByKey(db: Kysely<Database>): FindCredentialByKey {
  return async (key) => {
    const row = await db
      .selectFrom('api_credentials as c')
      .innerJoin('users as u', 'u.id', 'c.user_id')
      .where('c.client_secret', '=', key)
      .select(['c.client_id', 'c.user_id', 'u.username', 'c.status'])
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      clientId: row.client_id,
      userId: row.user_id,
      username: row.username,
      active: row.status === 'approved',
    };
  };
}

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
