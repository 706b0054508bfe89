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

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * The pages that take a password (sign-in, sign-up) over plain http are a 403 page when
 * OAUTH2_HTTPS_ONLY is on: a password sent in the clear is worth more than any token the https rule
 * protects. A browser on the machine itself (no proxy declared, the peer on loopback: `npm start`
 * opened on 127.0.0.1) is let through, as browsers count localhost a secure context: its password
 * never crosses a network. Behind a proxy (TRUST_PROXY) only https counts, as X-Forwarded-Proto says.
 */
export function requireHttpsForPasswords(enabled: boolean, trustProxy: number) {
  const https = requireHttps(enabled);
  return async (ctx: Context, next: Next) => {
    if (!trustProxy && LOOPBACK.has(ctx.req.socket.remoteAddress ?? '')) return next();
    return https(ctx, next);
  };
}
