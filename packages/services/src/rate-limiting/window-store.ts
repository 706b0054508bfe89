import type { Redis } from 'ioredis';
import { memoryBuckets } from './memory-buckets.ts';
import { memoryFirstAttempt } from './memory-first-attempt.ts';
import { redisFirstAttempt } from './redis-first-attempt.ts';
import { redisReservations } from './redis-reservations.ts';
import type { WindowKind, WindowSpec, WindowStore } from './store.ts';

export interface WindowStoreOptions {
  /** Redis client; absent = this process's memory. */
  redis?: Redis;
  /** How the windows start (default `clock`); one kind per store. */
  kind?: WindowKind;
  /** Key prefix and length of each window, in the order of the indices given to the store. */
  windows: readonly WindowSpec[];
}

export function windowStore(options: WindowStoreOptions): WindowStore {
  const firstAttempt = options.kind === 'first-attempt';
  const memory = firstAttempt ? memoryFirstAttempt(options.windows) : memoryBuckets(options.windows.length);
  if (!options.redis) return memory;
  const redis = firstAttempt
    ? redisFirstAttempt(options.redis, options.windows)
    : redisReservations(options.redis, options.windows);
  // A Redis outage (the client queues nothing offline, so it fails at once) degrades to counting in
  // this process's memory instead of refusing or delaying every request.
  return {
    add(key, indices, limits) {
      const counted = redis.add(key, indices, limits);
      return counted instanceof Promise ? counted.catch(() => memory.add(key, indices, limits)) : counted;
    },
    remove(key, indices, counts) {
      const removed = redis.remove(key, indices, counts);
      return removed?.catch(() => memory.remove(key, indices, counts));
    },
    reset(key, indices) {
      return redis.reset(key, indices)?.catch(() => memory.reset(key, indices));
    },
    close: () => redis.close().catch(() => {}),
  };
}
