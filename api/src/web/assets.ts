import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context, Next } from 'koa';

/**
 * The static files of the web pages: the stylesheet and a few small scripts (the CSP allows only
 * this site's). Each address carries a digest of the file's content, so browsers may keep it for a
 * year: a changed file is a new address.
 */
interface Asset {
  body: Buffer;
  digest: string;
  type: string;
}

const ASSET_PREFIX = '/web-assets/';
const assets = new Map<string, Asset>();

function load(name: string, type: string): string {
  const body = readFileSync(new URL(`./static/${name}`, import.meta.url));
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 12);
  assets.set(`${ASSET_PREFIX}${name}`, { body, digest, type });
  return `${ASSET_PREFIX}${name}?v=${digest}`;
}

export const STYLESHEET_PATH = `${ASSET_PREFIX}earshot.css`;
export const stylesheetUrl = load('earshot.css', 'text/css; charset=utf-8');
/** Upload progress (XHR upload events) on the upload page. */
export const uploadScriptUrl = load('upload.js', 'text/javascript; charset=utf-8');
/** Polls the pending uploads record on the processing page. */
export const pendingScriptUrl = load('pending.js', 'text/javascript; charset=utf-8');

export function serveStylesheet() {
  return async (ctx: Context, next: Next) => {
    const asset = assets.get(ctx.path);
    if (!asset || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.set(
      'Cache-Control',
      ctx.query.v === asset.digest ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    );
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}
