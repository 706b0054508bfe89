import type { ChangeVersion } from '@earshot/catalogue';
import type { ApiKeyCredential, FindCredentialByKey } from '../framework/auth/token-strategy.ts';
import { pastHalfLife, SharedReads } from './shared-reads.ts';

/** Keys are 40 characters; a longer string cannot be one and is never remembered as a miss. */
const MAX_REMEMBERED_MISS_LENGTH = 64;

export interface CredentialLookupLimits {
  ttlMs?: number;
  /** Known keys remembered at most. */
  maxEntries?: number;
  /** Unknown keys remembered at most (a junk-key flood fills only these, never evicting known keys). */
  maxMisses?: number;
}

/** The lookup, plus what it holds (for tests of its bounds). */
export type CachedCredentialLookup = FindCredentialByKey & {
  held(): { entries: number; misses: number; chars: number };
};

/**
 * Remembers lookups for `ttlMs` so a busy client does not cost a database round trip per request.
 * Credential changes move the catalogue's change version (the api_credentials trigger), which
 * empties the cache as soon as this process hears of it, so a revoked key is refused at once on
 * the embedded database and within a notification's delay on PostgreSQL; without a change feed,
 * within `ttlMs`.
 *
 * Known keys and unknown ones are kept apart: a flood of unique junk keys (every request a new
 * one) only cycles the small miss map, whose keys are at most 64 characters, so it can neither
 * push the known keys out nor grow memory (issue 19). A junk key costs one unique-index probe.
 */
export function cachedCredentialLookup(
  find: FindCredentialByKey,
  changes?: ChangeVersion,
  { ttlMs = 30_000, maxEntries = 10_000, maxMisses = 1_000 }: CredentialLookupLimits = {},
): CachedCredentialLookup {
  const known = new Map<string, { at: number; value: ApiKeyCredential }>();
  const misses = new Map<string, number>();
  const reads = new SharedReads<string, ApiKeyCredential | undefined>();
  changes?.onChange(() => {
    reads.changed();
    known.clear();
    misses.clear();
  });
  const remember = <V>(map: Map<string, V>, max: number, key: string, value: V) => {
    map.delete(key);
    if (map.size >= max) map.delete(map.keys().next().value as string);
    map.set(key, value);
  };
  /** One database lookup per key at a time: concurrent requests with the same key share it. */
  const read = (key: string): Promise<ApiKeyCredential | undefined> => {
    const startedAt = Date.now();
    return reads.share(key, find(key), (value) => {
      if (value) {
        misses.delete(key);
        remember(known, maxEntries, key, { at: startedAt, value });
      } else if (key.length <= MAX_REMEMBERED_MISS_LENGTH) {
        known.delete(key);
        remember(misses, maxMisses, key, startedAt);
      }
    });
  };
  const lookup = async (key: string) => {
    const now = Date.now();
    const hit = known.get(key);
    if (hit && now - hit.at < ttlMs) {
      // A failed refresh is not this request's: the entry expires and is read again then.
      if (pastHalfLife(hit.at, now, ttlMs) && !reads.pending(key)) read(key).catch(() => undefined);
      return hit.value;
    }
    const missedAt = misses.get(key);
    if (missedAt !== undefined && now - missedAt < ttlMs) return undefined;
    return reads.pending(key) ?? read(key);
  };
  return Object.assign(lookup, {
    held() {
      let chars = 0;
      for (const key of known.keys()) chars += key.length;
      for (const key of misses.keys()) chars += key.length;
      return { entries: known.size, misses: misses.size, chars };
    },
  });
}
