import type { Context, Next } from 'koa';
import { sessionRateLimitSubject } from '../framework/auth/session-strategy.ts';
import { throttle } from '../framework/http/throttle.ts';
import type { RateLimiter } from '../framework/rate-limits/rate-limiter.ts';
import { webState } from './state.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every form a signed-in user sends through the pages is a write, counted against the API's strict
 * limit (API.md "Limits": 30 a minute, 500 a day at the standard level) under the same key as the
 * user's browseable-API requests. Placed in the chain before the page reads its body (an upload's
 * file included). A refused form throws Throttled, which the pages show as a 429 page with
 * Retry-After. Without a limiter (tests of single pages) nothing is counted.
 */
export function countWrites(limiter: RateLimiter | undefined) {
  return async (ctx: Context, next: Next) => {
    const user = webState(ctx).user;
    if (limiter && user && !SAFE_METHODS.has(ctx.method)) {
      await throttle(ctx, limiter, sessionRateLimitSubject(user.id), 'strict');
    }
    await next();
  };
}
