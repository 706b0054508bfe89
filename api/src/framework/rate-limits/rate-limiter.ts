import type { RateLimitLevelName } from '@earshot/catalogue';
import { type SlidingWindowVerdict, slidingWindowLimiter } from '@earshot/services';
import type { Redis } from 'ioredis';
import { defaultRateLimitPolicy, type RateLimitClass, type RateLimitPolicy } from './policy.ts';
import { exceededDetail, SUSPENDED_DETAIL } from './throttled.ts';

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
  /** The credential's use of each class's windows now, counting nothing (`/apiv2/me/limits/`). */
  usage(subject: RateLimitSubject): Promise<RateLimitUsage>;
  /** Gives back the requests counted ahead in Redis (a closing server's unused reservations). */
  close(): Promise<void>;
}

/** One window's use, in whole seconds as the X-RateLimit-* headers give it. */
export interface WindowUse {
  limit: number;
  used: number;
  remaining: number;
  /** Seconds until everything counted has slid out (X-RateLimit-Reset). */
  reset: number;
}

/** A class's windows, or what the level makes of it instead of counting. */
export type ClassUse = { minute: WindowUse; day: WindowUse } | 'unlimited' | 'suspended';

export interface RateLimitUsage {
  level: RateLimitLevelName;
  standard: ClassUse;
  strict: ClassUse;
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
 * Per-credential limits over sliding windows (the counting is @earshot/services' rate-limiting):
 * each request is counted in the minute and the day window of its credential and class (standard
 * and strict are counted apart), against the limits its level's policy gives; the verdict becomes
 * the X-RateLimit-* headers and, when refused, upstream's detail and Retry-After.
 */
export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const policy = options.policy ?? defaultRateLimitPolicy;
  const windowsMs = options.windowsMs ?? { minute: 60_000, day: 86_400_000 };
  const prefix = options.keyPrefix ?? 'earshot:rl';
  const limiter = slidingWindowLimiter({
    redis: options.redis,
    now: options.now,
    windows: [
      { prefix: `${prefix}:m`, windowMs: windowsMs.minute },
      { prefix: `${prefix}:d`, windowMs: windowsMs.day },
    ],
  });
  return {
    check(subject, cls) {
      const limits = policy(subject.rateLimitLevel ?? 'standard', cls);
      if (limits === 'unlimited') return undefined;
      if (limits === 'suspended') return { allowed: false, headers: {}, detail: SUSPENDED_DETAIL };
      const counted = limiter.count(`${cls}:${subject.clientId}`, [limits.minute, limits.day]);
      return counted instanceof Promise ? counted.then(toHttp) : toHttp(counted);
    },
    async usage(subject) {
      const level = subject.rateLimitLevel ?? 'standard';
      const use = async (cls: RateLimitClass): Promise<ClassUse> => {
        const limits = policy(level, cls);
        if (limits === 'unlimited' || limits === 'suspended') return limits;
        const [minute, day] = await limiter.usage(`${cls}:${subject.clientId}`, [limits.minute, limits.day]);
        const whole = (w: typeof minute): WindowUse => ({
          limit: w.limit,
          used: w.used,
          remaining: w.remaining,
          reset: seconds(w.clearMs),
        });
        return { minute: whole(minute), day: whole(day) };
      };
      return { level, standard: await use('standard'), strict: await use('strict') };
    },
    close: () => limiter.close(),
  };
}

/**
 * `X-RateLimit-Limit`: the window's limit; `-Remaining`: requests left in it now; `-Reset`: seconds
 * until everything counted has slid out of it (the whole quota is back). A refused request also
 * gets upstream's detail naming the limit and `Retry-After`.
 */
function toHttp(verdict: SlidingWindowVerdict): RateLimitVerdict {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(verdict.limit),
    'X-RateLimit-Remaining': String(verdict.remaining),
    'X-RateLimit-Reset': String(seconds(verdict.clearMs)),
  };
  if (verdict.allowed) return { allowed: true, headers };
  headers['Retry-After'] = String(Math.max(1, seconds(verdict.waitMs ?? 0)));
  return { allowed: false, detail: exceededDetail(verdict.limit, WINDOWS[verdict.window]), headers };
}

/** Whole seconds, rounded up, of a duration computed in floating point (51000.0000001 ms is 51 s). */
function seconds(ms: number): number {
  return Math.ceil(Math.round(ms) / 1000);
}
