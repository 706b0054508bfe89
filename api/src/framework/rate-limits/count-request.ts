import type { RateLimitClass } from './policy.ts';
import type { RateLimiter, RateLimitSubject } from './rate-limiter.ts';
import { Throttled } from './throttled.ts';

/**
 * Counts one request of `subject` against its limits of class `cls`: the one gate every counted
 * request goes through (http/admission.ts for the API's routes and the hot path, http/throttle.ts
 * for the web pages' forms and the files a route counts apart). Returns the verdict's headers for
 * the answer (undefined: not limited at all); a refused request throws Throttled carrying the wait
 * and the same headers.
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
