import type { Context, Next } from 'koa';

/** The API is public and read by browser apps: CORS is open, as the original service does. */
export function cors() {
  return async (ctx: Context, next: Next) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
      ctx.set(
        'Access-Control-Allow-Headers',
        ctx.get('Access-Control-Request-Headers') || 'Authorization, Content-Type',
      );
      ctx.set('Access-Control-Max-Age', '86400');
      ctx.status = 204;
      return;
    }
    await next();
  };
}
