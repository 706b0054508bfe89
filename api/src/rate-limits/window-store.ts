import type { Redis } from 'ioredis';
import { memoryBuckets } from './memory-buckets.ts';
import { redisBuckets } from './redis-buckets.ts';

/** A window's counts for one request: its current bucket (this request included) and the one before. */
export interface WindowCounts {
  current: number;
  previous: number;
}

/**
 * The counters behind the rate limits, the one place that touches their storage: per key, one
 * counter per clock-aligned bucket of each window, each living two windows (long enough to be read
 * as the previous one). A request is counted in every window at once (one Redis round trip); the
 * sliding-window arithmetic is the caller's (sliding-window.ts).
 */
export interface BucketStore {
  /**
   * Adds one to bucket `indices[w]` of every window `w`; returns each window's counts, at once when
   * they are in memory (a promise only when there is something to wait for).
   */
  add(key: string, indices: readonly number[]): WindowCounts[] | Promise<WindowCounts[]>;
  /** Takes the count back from those buckets (a refused request does not count, as upstream). */
  remove(key: string, indices: readonly number[]): undefined | Promise<void>;
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
  const redis = redisBuckets(options.redis, options.windows);
  // A Redis outage (the client queues nothing offline, so it fails at once) degrades to counting in
  // this process's memory instead of refusing or delaying every request.
  return {
    add: (key, indices) => redis.add(key, indices).catch(() => memory.add(key, indices)),
    remove: (key, indices) => redis.remove(key, indices).catch(() => memory.remove(key, indices)),
  };
}
