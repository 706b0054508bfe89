import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

/**
 * The counters behind the rate limits, the one place that touches their storage: per key, one
 * counter per clock-aligned bucket of a window (`key:bucketIndex`). rate-limiter-flexible keeps
 * them, in Redis (shared by every API process) or in this process's memory. It is used only as an
 * atomic counter with expiry: each bucket lives two windows, long enough to be read as the
 * previous one; the sliding-window arithmetic is the caller's (sliding-window.ts).
 */
export interface WindowStore {
  /** Adds one to bucket `index` and returns its new count with the count of bucket `index - 1`. */
  add(key: string, index: number): Promise<{ current: number; previous: number }>;
  /** Takes back one count (a refused request does not count, as upstream). */
  remove(key: string, index: number): Promise<void>;
}

export interface WindowStoreOptions {
  /** Redis client; absent = this process's memory. */
  redis?: Redis;
  /** Prefix of the Redis keys (tests give each run its own). */
  keyPrefix: string;
  windowMs: number;
}

export function windowStore(options: WindowStoreOptions): WindowStore {
  // Buckets must outlive their window by another window to serve as the previous bucket.
  const duration = Math.max(1, Math.ceil((2 * options.windowMs) / 1000));
  const common = { keyPrefix: options.keyPrefix, points: Number.MAX_SAFE_INTEGER, duration };
  const limiter: RateLimiterAbstract = options.redis
    ? new RateLimiterRedis({
        ...common,
        storeClient: options.redis,
        // A Redis outage degrades to per-process counting instead of refusing every request.
        insuranceLimiter: new RateLimiterMemory(common),
      })
    : new RateLimiterMemory(common);
  return {
    async add(key, index) {
      const [current, previous] = await Promise.all([
        limiter.penalty(`${key}:${index}`, 1),
        limiter.get(`${key}:${index - 1}`),
      ]);
      return { current: current.consumedPoints, previous: previous?.consumedPoints ?? 0 };
    },
    async remove(key, index) {
      await limiter.reward(`${key}:${index}`, 1);
    },
  };
}
