import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context, Next } from 'koa';

/**
 * The one stylesheet of the web pages. Its address carries a digest of its content, so browsers
 * may keep it for a year: a changed file is a new address.
 */
const css = readFileSync(new URL('./static/earshot.css', import.meta.url));
const digest = createHash('sha256').update(css).digest('hex').slice(0, 12);

export const STYLESHEET_PATH = '/web-assets/earshot.css';
export const stylesheetUrl = `${STYLESHEET_PATH}?v=${digest}`;

export function serveStylesheet() {
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== STYLESHEET_PATH || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.set(
      'Cache-Control',
      ctx.query.v === digest ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    );
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = css;
  };
}
