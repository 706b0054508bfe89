import type { Context, Next } from 'koa';
import { ALLOWED_ORIGIN } from './security-headers.ts';

/** The headers a browser app may send across origins: the credential and the body's type. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'X-Requested-With'];
/** The methods the API's resources answer (version 2 reads and searches, and their POST forms). */
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'];
/** Where cross-origin calls make sense: the API and the media files it links to. */
const CORS_PATHS = /^\/(apiv2|api|media)\//;

/**
 * The API is public and read by browser apps: any origin may call it, as the original service
 * allows. A preflight is answered only for the API's own paths, with the fixed lists above rather
 * than whatever the browser asks for, so a page cannot widen what it may send.
 */
export function cors() {
  return async (ctx: Context, next: Next) => {
    ctx.set('Access-Control-Allow-Origin', ALLOWED_ORIGIN);
    if (ctx.method === 'OPTIONS' && CORS_PATHS.test(ctx.path)) {
      ctx.set('Access-Control-Allow-Methods', ALLOWED_METHODS.join(', '));
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(', '));
      ctx.set('Access-Control-Max-Age', '86400');
      ctx.status = 204;
      return;
    }
    await next();
  };
}
