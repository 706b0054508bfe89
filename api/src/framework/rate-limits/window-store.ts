import type { Redis } from 'ioredis';
import { memoryBuckets } from './memory-buckets.ts';
import { redisReservations } from './redis-reservations.ts';

/** A window's counts for one request: its current bucket (this request included) and the one before. */
export interface WindowCounts {
  current: number;
  previous: number;
}

/**
 * The counters behind the rate limits, the one place that touches their storage: per key, one
 * counter per clock-aligned bucket of each window, each living two windows (long enough to be read
 * as the previous one). A request is counted in every window at once; the sliding-window
 * arithmetic is the caller's (sliding-window.ts).
 */
export interface BucketStore {
  /**
   * Adds one to bucket `indices[w]` of every window `w`; returns each window's counts, at once when
   * they are at hand (a promise only when there is something to wait for). `limits[w]` is window
   * `w`'s limit, by which a store that shares its counts sizes what it counts ahead.
   */
  add(
    key: string,
    indices: readonly number[],
    limits: readonly number[],
  ): WindowCounts[] | Promise<WindowCounts[]>;
  /** Takes the request counted as `counts` back out (a refused request does not count, as upstream). */
  remove(key: string, indices: readonly number[], counts: readonly WindowCounts[]): undefined | Promise<void>;
  /** Gives back what is counted ahead and stops any timer. */
  close?(): Promise<void>;
}

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
