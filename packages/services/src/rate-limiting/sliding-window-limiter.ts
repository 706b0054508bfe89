import type { Redis } from 'ioredis';
import { type BucketCounts, estimate, msUntilAllowed, msUntilClear } from './sliding-window.ts';
import type { WindowCounts, WindowSpec } from './store.ts';
import { windowStore } from './window-store.ts';

/** The outcome of one counted request, in the numbers a caller reports (the API: headers, 429). */
export interface SlidingWindowVerdict {
  allowed: boolean;
  /**
   * The window the verdict is about: allowed, the one closest to its limit; refused, the one that
   * keeps the caller waiting longest (retrying earlier would fail again).
   */
  window: number;
  limit: number;
  /** Requests left in that window now. */
  remaining: number;
  /** Milliseconds until everything counted has slid out of it (the whole quota is back). */
  clearMs: number;
  /** Refused: milliseconds until one more request fits, if no other comes meanwhile. */
  waitMs?: number;
}

type MaybePromise<T> = T | Promise<T>;

/** One window's use by a key, without counting a request. */
export interface WindowUsage {
  limit: number;
  /** Requests the window holds now (the sliding estimate, rounded up). */
  used: number;
  remaining: number;
  /** Milliseconds until everything counted has slid out (the whole quota is back). */
  clearMs: number;
}

export interface SlidingWindowLimiter {
  /**
   * Counts one request of `key` in every window and judges it against `limits` (one per window); a
   * refused request is taken back out. Answers at once when the counters allow it (memory): callers
   * await it.
   */
  count(key: string, limits: readonly number[]): MaybePromise<SlidingWindowVerdict>;
  /**
   * Each window's use by `key` now, counting nothing: a request is counted and taken back out, as
   * a refused one is, so every store (memory, Redis reservations) answers without a read of its own.
   */
  usage(key: string, limits: readonly number[]): Promise<WindowUsage[]>;
  /** Gives back the requests counted ahead in Redis (a closing server's unused reservations). */
  close(): Promise<void>;
}

export interface SlidingWindowLimiterOptions {
  /** Counters in Redis (shared by every process) when given, in memory otherwise. */
  redis?: Redis;
  /** Key prefix and length of each window, in the order of the limits given to `count`. */
  windows: readonly WindowSpec[];
  /** The clock the windows are aligned to (tests move it instead of waiting). */
  now?: () => number;
}

/**
 * Limits over `clock` windows read as sliding windows: each request adds one to the current bucket
 * of every window of its key, and is refused when any window's estimate goes over its limit.
 */
export function slidingWindowLimiter(options: SlidingWindowLimiterOptions): SlidingWindowLimiter {
  const now = options.now ?? Date.now;
  const lengths = options.windows.map((w) => w.windowMs);
  const store = windowStore({ redis: options.redis, windows: options.windows });

  /** Judges a counted request; a refused one is taken back out of the counts. */
  function judge(
    key: string,
    t: number,
    indices: number[],
    counted: WindowCounts[],
    limits: readonly number[],
  ): MaybePromise<SlidingWindowVerdict> {
    const windows = lengths.map((ms, w) => {
      const counts: BucketCounts = {
        current: counted[w].current,
        previous: counted[w].previous,
        elapsed: (t - indices[w] * ms) / ms,
      };
      return { window: w, ms, limit: limits[w], counts };
    });
    const exceeded = windows.filter((w) => estimate(w.counts) > w.limit);
    if (exceeded.length === 0) {
      const tightest = windows.reduce((a, b) =>
        b.limit - estimate(b.counts) < a.limit - estimate(a.counts) ? b : a,
      );
      return { allowed: true, ...report(tightest.window, tightest.limit, tightest.counts, tightest.ms) };
    }
    // A refused request does not count (as upstream), so the next one is judged on the accepted ones.
    const judged = exceeded.map((w) => {
      const counts = { ...w.counts, current: w.counts.current - 1 };
      return { ...w, counts, wait: msUntilAllowed(counts, w.limit, w.ms) };
    });
    const binding = judged.reduce((a, b) => (b.wait > a.wait ? b : a));
    const verdict: SlidingWindowVerdict = {
      allowed: false,
      ...report(binding.window, binding.limit, binding.counts, binding.ms),
      waitMs: binding.wait,
    };
    const removed = store.remove(key, indices, counted);
    return removed ? removed.then(() => verdict) : verdict;
  }

  return {
    count(key, limits) {
      const t = now();
      const indices = lengths.map((ms) => Math.floor(t / ms));
      // In Redis, requests are counted several at a time (redis-reservations.ts): most requests
      // cost no round trip; none ever does in memory.
      const counted = store.add(key, indices, limits);
      return counted instanceof Promise
        ? counted.then((c) => judge(key, t, indices, c, limits))
        : judge(key, t, indices, counted, limits);
    },
    async usage(key, limits) {
      const t = now();
      const indices = lengths.map((ms) => Math.floor(t / ms));
      const counted = await store.add(key, indices, limits);
      await store.remove(key, indices, counted);
      return lengths.map((ms, w) => {
        const counts = {
          current: counted[w].current - 1,
          previous: counted[w].previous,
          elapsed: (t - indices[w] * ms) / ms,
        };
        const used = Math.ceil(estimate(counts));
        return {
          limit: limits[w],
          used,
          remaining: Math.max(0, limits[w] - used),
          clearMs: msUntilClear(counts, ms),
        };
      });
    },
    close: () => store.close?.() ?? Promise.resolve(),
  };
}

function report(window: number, limit: number, counts: BucketCounts, windowMs: number) {
  return {
    window,
    limit,
    remaining: Math.max(0, Math.floor(limit - estimate(counts))),
    clearMs: msUntilClear(counts, windowMs),
  };
}
