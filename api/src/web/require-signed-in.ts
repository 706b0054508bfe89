import type { Context, Next } from 'koa';
import { webState } from './state.ts';

export const LOGIN_PATH = '/apiv2/login/';

/** The sign-in page, coming back to `next` afterwards. */
export function loginUrl(next?: string): string {
  return next ? `${LOGIN_PATH}?next=${encodeURIComponent(next)}` : LOGIN_PATH;
}

/**
 * Guards a page that needs a signed-in user: a visitor is sent to the sign-in page, which brings
 * them back here (a GET comes back to the same address; after a POST, to the page's path).
 */
export function requireSignedIn() {
  return async (ctx: Context, next: Next) => {
    if (webState(ctx).user) return next();
    ctx.redirect(loginUrl(ctx.method === 'GET' ? ctx.originalUrl : ctx.path));
  };
}
