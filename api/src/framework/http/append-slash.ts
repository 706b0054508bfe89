import type Router from '@koa/router';
import type { Context, Next } from 'koa';

/**
 * A path under `under` written without its trailing slash (`/apiv2`, `/apiv2/sounds/1`) that no
 * route answers, but whose slashed form one does, is redirected there with its query: 301 for GET
 * and HEAD, 308 for the other methods, which keeps the method and the body. Upstream (Django's
 * APPEND_SLASH) redirects the same way, and the contract gives its browseable address as
 * `{base_url}/apiv2`. Placed after every router: only what nothing matched comes here, and a path
 * whose slashed form matches nothing either stays a 404.
 */
export function appendSlash(routers: readonly Router[], under: string) {
  return async (ctx: Context, next: Next) => {
    const path = ctx.path;
    if (path.endsWith('/') || !(path === under || path.startsWith(`${under}/`))) return next();
    const slashed = `${path}/`;
    if (!routers.some((router) => router.match(slashed, ctx.method).route)) return next();
    ctx.status = ctx.method === 'GET' || ctx.method === 'HEAD' ? 301 : 308;
    ctx.redirect(ctx.querystring ? `${slashed}?${ctx.querystring}` : slashed);
  };
}
