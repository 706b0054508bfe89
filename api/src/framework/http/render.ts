import type { Context, Next } from 'koa';
import YAML from 'yaml';
import { readRawQuery } from './raw-query.ts';
import { RenderedJson } from './rendered-json.ts';
import { toXml } from './xml.ts';

export const FORMATS = ['json', 'xml', 'yaml'] as const;
export type Format = (typeof FORMATS)[number];

const MEDIA_TYPES: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  yaml: 'application/yaml; charset=utf-8',
};

const ACCEPTED: Array<[string, Format]> = [
  ['application/json', 'json'],
  ['application/xml', 'xml'],
  ['text/xml', 'xml'],
  ['application/yaml', 'yaml'],
  ['application/x-yaml', 'yaml'],
  ['text/yaml', 'yaml'],
];

/**
 * Chooses the response format (`format=` first, then the Accept header, JSON otherwise) and
 * serializes every object body in it, error bodies included. An unknown `format` is a 400.
 */
export function renderer() {
  return async (ctx: Context, next: Next) => {
    // Parsed once here; the router reads the same object (ctx.state.rawQuery).
    const rawQuery = readRawQuery(ctx.querystring);
    ctx.state.rawQuery = rawQuery;
    const requested = rawQuery.format;
    if (wantsHtml(requested, ctx.get('Accept'))) {
      // The browseable API (web/browse/) renders the JSON body as a page; here it stays JSON.
      ctx.state.browse = true;
      ctx.state.format = 'json';
      await next();
    } else if (requested !== undefined && !(FORMATS as readonly string[]).includes(requested)) {
      ctx.status = 400;
      ctx.body = { detail: `Unknown format "${requested}"; use one of ${FORMATS.join(', ')}.` };
      ctx.state.format = 'json';
    } else {
      ctx.state.format = (requested as Format | undefined) ?? negotiate(ctx.get('Accept'));
      await next();
    }
    const body = ctx.body;
    if (body === null || body === undefined || typeof body !== 'object') return;
    if (Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
    const format: Format = ctx.state.format;
    const status = ctx.status;
    // The type first: a string body assigned without one makes Koa guess (and look up) text/html.
    ctx.set('Content-Type', MEDIA_TYPES[format]);
    if (body instanceof RenderedJson) {
      ctx.body = format === 'json' ? body.bytes : serialize(body.value, format);
    } else {
      ctx.body = serialize(body, format);
    }
    ctx.status = status;
    ctx.vary('Accept');
  };
}

export function serialize(body: unknown, format: Format): string {
  if (format === 'xml') return toXml(body);
  if (format === 'yaml') return YAML.stringify(body);
  return JSON.stringify(body);
}

/** `format=api` (upstream's name for the browseable API). */
export const BROWSE_FORMAT = 'api';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * Whether the browseable API answers: `format=api`, or no `format` and an Accept header that
 * prefers HTML to every format the API serves, as a browser's does. A tie goes to the API's format
 * and `*\/*` is no preference, so curl, fetch and every API client keep getting JSON.
 */
export function wantsHtml(format: string | undefined, accept: string | undefined): boolean {
  if (format !== undefined) return format === BROWSE_FORMAT;
  if (!accept?.includes('html')) return false;
  let html = 0;
  let api = 0;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    const media = type.trim();
    if (HTML_TYPES.has(media)) html = Math.max(html, q);
    else if (ACCEPTED.some(([known]) => known === media)) api = Math.max(api, q);
  }
  return html > 0 && html > api;
}

/** Picks the best supported type by quality; anything else (or `*\/*`) is JSON. */
export function negotiate(accept: string): Format {
  if (!accept) return 'json';
  let best: { format: Format; q: number } = { format: 'json', q: -1 };
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const match = ACCEPTED.find(([media]) => media === type.trim());
    if (match && q > best.q) best = { format: match[1], q };
  }
  return best.format;
}
