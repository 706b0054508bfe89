import type { Context, Next } from 'koa';
import { renderError } from './render.ts';

/**
 * The OAuth2 pages (authorize, the code page, authorized applications) over plain http are a 403
 * page when OAUTH2_HTTPS_ONLY is on: the contract's "all steps must use https". Behind a proxy,
 * TRUST_PROXY=1 lets X-Forwarded-Proto decide (ctx.secure). Checked before the session is read,
 * so no cookie is sent over the plain connection.
 */
export function requireHttps(enabled: boolean) {
  return async (ctx: Context, next: Next) => {
    if (!enabled || ctx.secure) return next();
    await renderError(ctx, 403, {
      title: 'This page needs a secure connection',
      message: 'This resource requires a secure connection (https). Open the same address with https://.',
    });
  };
}
