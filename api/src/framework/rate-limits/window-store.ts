import type { Redis } from 'ioredis';
import type { BucketStore } from './bucket-store.ts';
import { memoryBuckets } from './memory-buckets.ts';
import { redisReservations } from './redis-reservations.ts';

export interface WindowStoreOptions {
  /** Redis client; absent = this process's memory. */
  redis?: Redis;
  /** Key prefix and length of each window, in the order of the indices given to the store. */
  windows: readonly { prefix: string; windowMs: number }[];
}

export function windowStore(options: WindowStoreOptions): BucketStore {
  const memory = memoryBuckets(options.windows.length);
  if (!options.redis) return memory;
  const redis = redisReservations(options.redis, options.windows);
  // A Redis outage (the client queues nothing offline, so it fails at once) degrades to counting in
  // this process's memory instead of refusing or delaying every request.
  return {
    add(key, indices, limits) {
      const counted = redis.add(key, indices, limits);
      return counted instanceof Promise ? counted.catch(() => memory.add(key, indices, limits)) : counted;
    },
    remove: (key, indices, counts) => redis.remove(key, indices, counts),
    close: () => redis.close().catch(() => {}),
  };
}
