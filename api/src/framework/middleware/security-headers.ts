import type { Context, Next } from 'koa';
import { API_CSP, PAGE_CSP, SECURITY_HEADERS } from '../http/security-headers.ts';

/**
 * Puts the security headers on every answer, errors included: the fixed ones before the handler
 * runs (so a handler that streams its answer has them), the Content-Security-Policy after, when the
 * answer's type says whether it is a page (the web layer's pages set theirs already: web/render.ts).
 */
export function securityHeaders() {
  return async (ctx: Context, next: Next) => {
    ctx.set(SECURITY_HEADERS);
    try {
      await next();
    } finally {
      if (!ctx.headerSent && !ctx.response.get('Content-Security-Policy')) {
        ctx.set('Content-Security-Policy', ctx.response.is('html') ? PAGE_CSP : API_CSP);
      }
    }
  };
}
