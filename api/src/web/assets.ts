import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context, Next } from 'koa';

/**
 * The static files of the web pages (one stylesheet, a few small scripts). Each address carries a
 * digest of the file's content, so browsers may keep it for a year: a changed file is a new address.
 * Scripts live in files (never inline) so the pages' CSP can say `script-src 'self'`.
 */
interface Asset {
  path: string;
  type: string;
  body: Buffer;
  digest: string;
}

function asset(file: string, type: string): Asset {
  const body = readFileSync(new URL(`./static/${file}`, import.meta.url));
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/web-assets/${file}`, type, body, digest };
}

const ASSETS = [
  asset('earshot.css', 'text/css; charset=utf-8'),
  asset('sound-page.js', 'text/javascript; charset=utf-8'),
  asset('upload.js', 'text/javascript; charset=utf-8'),
  asset('pending.js', 'text/javascript; charset=utf-8'),
  asset('suggest.js', 'text/javascript; charset=utf-8'),
];
const BY_PATH = new Map(ASSETS.map((a) => [a.path, a]));

const versioned = (a: Asset) => `${a.path}?v=${a.digest}`;

export const STYLESHEET_PATH = ASSETS[0].path;
export const stylesheetUrl = versioned(ASSETS[0]);
/** The waveform and players of the sound, search and home pages. */
export const soundScriptUrl = versioned(ASSETS[1]);
/** Upload progress (XHR upload events) on the upload page. */
export const uploadScriptUrl = versioned(ASSETS[2]);
/** Polls the pending uploads record on the processing page. */
export const pendingScriptUrl = versioned(ASSETS[3]);
/** Completions in the search boxes (home and search pages). */
export const suggestScriptUrl = versioned(ASSETS[4]);

/** Bytes of each asset, for the page-weight budget (docs/web.md). */
export const assetSizes: Readonly<Record<string, number>> = Object.fromEntries(
  ASSETS.map((a) => [a.path, a.body.length]),
);

export function serveStylesheet() {
  return async (ctx: Context, next: Next) => {
    const found = BY_PATH.get(ctx.path);
    if (!found || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.set(
      'Cache-Control',
      ctx.query.v === found.digest ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    );
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = found.type;
    ctx.body = found.body;
  };
}
