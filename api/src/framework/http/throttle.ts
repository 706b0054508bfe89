import type { Context } from 'koa';
import type { RateLimitClass } from '../rate-limits/policy.ts';
import type { RateLimiter, RateLimitSubject } from '../rate-limits/rate-limiter.ts';
import { Throttled } from '../rate-limits/throttled.ts';

/**
 * Counts one request of `subject` against its limits of class `cls`: the one gate every counted
 * path goes through (the API's route declarations, the web pages' forms). The verdict's headers are
 * set on the answer, the 429's too (error handlers keep headers already set); a refused request
 * throws Throttled carrying the wait.
 */
export async function throttle(
  ctx: Context,
  limiter: RateLimiter,
  subject: RateLimitSubject,
  cls: RateLimitClass,
): Promise<void> {
  const verdict = await limiter.check(subject, cls);
  if (!verdict) return;
  ctx.set(verdict.headers);
  if (verdict.allowed) return;
  const retryAfter = Number(verdict.headers['Retry-After']);
  throw new Throttled(verdict.detail ?? 'Request was throttled', retryAfter > 0 ? retryAfter : undefined);
}
