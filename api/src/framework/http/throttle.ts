import type { Context } from 'koa';
import { countRequest } from '../rate-limits/count-request.ts';
import type { RateLimitClass } from '../rate-limits/policy.ts';
import type { RateLimiter, RateLimitSubject } from '../rate-limits/rate-limiter.ts';
import { Throttled } from '../rate-limits/throttled.ts';

/**
 * countRequest on the application's path, for the counts that are not a route's admission (the
 * web pages' forms, the files a route counts apart): the verdict's headers are set on the answer,
 * the 429's too (error handlers keep headers already set), so the pages' own 429 has them.
 */
export async function throttle(
  ctx: Context,
  limiter: RateLimiter,
  subject: RateLimitSubject,
  cls: RateLimitClass,
): Promise<void> {
  try {
    const headers = await countRequest(limiter, subject, cls);
    if (headers) ctx.set(headers);
  } catch (err) {
    if (err instanceof Throttled) ctx.set(err.headers);
    throw err;
  }
}
