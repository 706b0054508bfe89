import type { Context } from 'koa';
import type { RateLimitClass } from '../rate-limits/policy.ts';
import type { RateLimiter, RateLimitSubject } from '../rate-limits/rate-limiter.ts';
import { Throttled } from '../rate-limits/throttled.ts';

/**
 * Counts one request of `subject` against its limits of class `cls`: the one gate every counted
 * request goes through (admission.ts for the API's routes and the hot path, `throttle` below for the
 * web pages' forms and the files a route counts apart). Returns the verdict's headers for the
 * answer (undefined: not limited at all); a refused request throws Throttled carrying the wait and
 * the same headers.
 */
export async function countRequest(
  limiter: RateLimiter,
  subject: RateLimitSubject,
  cls: RateLimitClass,
): Promise<Readonly<Record<string, string>> | undefined> {
  const verdict = await limiter.check(subject, cls);
  if (!verdict) return undefined;
  if (verdict.allowed) return verdict.headers;
  const retryAfter = Number(verdict.headers['Retry-After']);
  throw new Throttled(
    verdict.detail ?? 'Request was throttled',
    retryAfter > 0 ? retryAfter : undefined,
    verdict.headers,
  );
}

/**
 * countRequest on the application's path: the verdict's headers are set on the answer, the 429's
 * too (error handlers keep headers already set).
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
