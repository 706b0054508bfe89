import type { RateLimitLevelName } from '@earshot/catalogue';
import type { Redis } from 'ioredis';
import type { WindowCounts } from './bucket-store.ts';
import {
  defaultRateLimitPolicy,
  type RateLimitClass,
  type RateLimitPolicy,
  type WindowLimits,
} from './policy.ts';
import { type BucketCounts, estimate, msUntilAllowed, msUntilClear } from './sliding-window.ts';
import { exceededDetail, SUSPENDED_DETAIL } from './throttled.ts';
import { windowStore } from './window-store.ts';

/** What a request is counted by: the credential (application) and the level it was given. */
export interface RateLimitSubject {
  clientId: string;
  /** Absent = `standard` (a strategy that does not know the level). */
  rateLimitLevel?: RateLimitLevelName;
}

/** The outcome for one request: the headers to send and, when refused, the 429's detail. */
export interface RateLimitVerdict {
  allowed: boolean;
  headers: Record<string, string>;
  detail?: string;
}

type MaybePromise<T> = T | Promise<T>;

export interface RateLimiter {
  /**
   * Counts the request (unless refused) and judges it; undefined = not limited at all (`unlimited`).
   * Answers at once when the counters allow it (memory, nothing to wait for): callers await it.
   */
  check(subject: RateLimitSubject, cls: RateLimitClass): MaybePromise<RateLimitVerdict | undefined>;
  /** Gives back the requests counted ahead in Redis (a closing server's unused reservations). */
  close(): Promise<void>;
}

export interface RateLimiterOptions {
  /** Counters in Redis (shared by every API process) when given, in memory otherwise. */
  redis?: Redis;
  keyPrefix?: string;
  /** The clock the windows are aligned to (tests move it instead of waiting). */
  now?: () => number;
  policy?: RateLimitPolicy;
  /** Window lengths (default a minute and a day, as the limits' names say). */
  windowsMs?: { minute: number; day: number };
}

const WINDOWS = ['minute', 'day'] as const;

/**
 * Per-credential limits over sliding windows: each request adds one to the current bucket of the
 * minute and of the day window of its credential and class (standard and strict are counted
 * apart), and is refused when either window's estimate goes over the level's limit.
 */
export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const now = options.now ?? Date.now;
  const policy = options.policy ?? defaultRateLimitPolicy;
  const windowsMs = options.windowsMs ?? { minute: 60_000, day: 86_400_000 };
  const prefix = options.keyPrefix ?? 'earshot:rl';
  const lengths = WINDOWS.map((name) => windowsMs[name]);
  const store = windowStore({
    redis: options.redis,
    windows: [
      { prefix: `${prefix}:m`, windowMs: windowsMs.minute },
      { prefix: `${prefix}:d`, windowMs: windowsMs.day },
    ],
  });
  /** Judges a counted request; a refused one is taken back out of the counts. */
  function judge(key: string, t: number, indices: number[], counted: WindowCounts[], limits: WindowLimits) {
    const windows = WINDOWS.map((name, w) => {
      const ms = lengths[w];
      const counts: BucketCounts = {
        current: counted[w].current,
        previous: counted[w].previous,
        elapsed: (t - indices[w] * ms) / ms,
      };
      return { name, ms, limit: limits[name], counts };
    });
    const exceeded = windows.filter((w) => estimate(w.counts) > w.limit);
    if (exceeded.length === 0) {
      // Report the window closest to its limit.
      const tightest = windows.reduce((a, b) =>
        b.limit - estimate(b.counts) < a.limit - estimate(a.counts) ? b : a,
      );
      return { allowed: true, headers: headers(tightest.limit, tightest.counts, tightest.ms) };
    }
    // A refused request does not count (as upstream), so the next one is judged on the accepted ones.
    const judged = exceeded.map((w) => {
      const counts = { ...w.counts, current: w.counts.current - 1 };
      return { ...w, counts, wait: msUntilAllowed(counts, w.limit, w.ms) };
    });
    // Name the limit that keeps the client waiting longest: retrying earlier would fail again.
    const binding = judged.reduce((a, b) => (b.wait > a.wait ? b : a));
    const verdict: RateLimitVerdict = {
      allowed: false,
      detail: exceededDetail(binding.limit, binding.name),
      headers: {
        ...headers(binding.limit, binding.counts, binding.ms),
        'Retry-After': String(Math.max(1, seconds(binding.wait))),
      },
    };
    const removed = store.remove(key, indices, counted);
    return removed ? removed.then(() => verdict) : verdict;
  }
  return {
    check(subject, cls) {
      const limits = policy(subject.rateLimitLevel ?? 'standard', cls);
      if (limits === 'unlimited') return undefined;
      if (limits === 'suspended') return { allowed: false, headers: {}, detail: SUSPENDED_DETAIL };
      const t = now();
      const key = `${cls}:${subject.clientId}`;
      const indices = lengths.map((ms) => Math.floor(t / ms));
      // In Redis, requests are counted several at a time (redis-reservations.ts): most requests
      // cost no round trip; none ever does in memory.
      const counted = store.add(key, indices, [limits.minute, limits.day]);
      return counted instanceof Promise
        ? counted.then((c) => judge(key, t, indices, c, limits))
        : judge(key, t, indices, counted, limits);
    },
    close: () => store.close?.() ?? Promise.resolve(),
  };
}

/**
 * `X-RateLimit-Limit`: the window's limit; `-Remaining`: requests left in it now; `-Reset`: seconds
 * until everything counted has slid out of it (the whole quota is back).
 */
function headers(limit: number, counts: BucketCounts, windowMs: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, Math.floor(limit - estimate(counts)))),
    'X-RateLimit-Reset': String(seconds(msUntilClear(counts, windowMs))),
  };
}

/** Whole seconds, rounded up, of a duration computed in floating point (51000.0000001 ms is 51 s). */
function seconds(ms: number): number {
  return Math.ceil(Math.round(ms) / 1000);
}
