import { STATUS_CODES } from 'node:http';
import type { Db } from '@earshot/catalogue';
import type { Context, Next } from 'koa';
import { z } from 'zod';
import { RenderedJson } from '../../framework/http/rendered-json.ts';
import type { AnyRoute } from '../../framework/http/route.ts';
import { renderPage } from '../render.ts';
import { loginUrl } from '../require-signed-in.ts';
import { webSessions } from '../session.ts';
import { webState } from '../state.ts';
import { jsonTokens } from './json-tokens.ts';

export interface BrowseOptions {
  db: Db;
  /** The API's routes (read when a page is rendered, so they may be mounted later). */
  routes: () => readonly AnyRoute[];
}

/** Parameters a form never offers: the credential and the format are the browser's business. */
const NOT_IN_FORMS = new Set(['token', 'format']);

/**
 * The browseable API: when the renderer decided the client wants HTML (`ctx.state.browse`:
 * `format=api`, or a browser's Accept header), the JSON body a route (or the error handler)
 * produced is shown as a page inside the web layout: the request line, status, allowed methods,
 * the JSON pretty-printed with its addresses as links, and a form for a POST resource. Sits
 * between the renderer and the error handler; bodies that are not JSON (files, the web pages'
 * HTML) pass untouched. The JSON itself is computed exactly as for a JSON client; nothing
 * rendered here is kept in a cache.
 */
export function browseableApi(options: BrowseOptions) {
  const loadSession = webSessions(options.db);
  return async (ctx: Context, next: Next) => {
    if (!ctx.state.browse) return next();
    await next();
    const body = ctx.body;
    if (body === null || body === undefined || typeof body !== 'object') return;
    if (Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
    const value = body instanceof RenderedJson ? body.value : body;
    const status = ctx.status;
    // The user for the layout and the forms' CSRF token (the API route authenticated on its own).
    await loadSession(ctx, async () => {});
    const routes = options.routes().filter((r) => matches(r.path, ctx.path));
    const get = routes.find((r) => r.method === 'GET');
    const signedIn = webState(ctx).user !== undefined;
    const url = ctx.originalUrl;
    await renderPage(ctx, status, 'api', {
      title: get?.summary ?? 'earshot API',
      method: ctx.method,
      url,
      status,
      statusText: STATUS_CODES[status] ?? '',
      allow: [...new Set(routes.map((r) => r.method)), 'OPTIONS'].join(', '),
      tokens: jsonTokens(value, { itemLink: get ? itemLink(get.path) : undefined }),
      jsonUrl: withFormat(ctx, 'json'),
      // A visitor without a credential is invited to sign in; a signed-in one has nothing to add.
      signInUrl: status === 401 && !signedIn ? loginUrl(url) : undefined,
      forms: signedIn
        ? routes.filter((r) => r.method === 'POST' && r.bodyParams).map((r) => form(r, ctx))
        : [],
    });
    ctx.vary('Accept');
  };
}

function matches(template: string, path: string): boolean {
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[A-Za-z0-9_]+\\?\}/g, '[^/]+');
  return new RegExp(`^${pattern}$`).test(path);
}

/** Sound lists link each result to its sound; a user's pack list to each pack. */
function itemLink(path: string): ((id: number) => string) | undefined {
  if (path.startsWith('/apiv2/search/') || /\/(similar|sounds)\/$/.test(path)) {
    return (id) => `/apiv2/sounds/${id}/`;
  }
  if (path.endsWith('/packs/')) return (id) => `/apiv2/packs/${id}/`;
  return undefined;
}

function withFormat(ctx: Context, format: string): string {
  const query = new URLSearchParams(ctx.querystring);
  query.set('format', format);
  return `${ctx.path}?${query}`;
}

interface FormField {
  name: string;
  value: string;
  help: string;
}

/** A form for a POST resource: its parameters (from the route's query schema), filled from the URL. */
function form(route: AnyRoute, ctx: Context): { summary: string; action: string; fields: FormField[] } {
  const schema = route.query;
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
  const current: Record<string, string> = ctx.state.rawQuery ?? {};
  const fields = Object.entries(shape)
    .filter(([name]) => !NOT_IN_FORMS.has(name))
    .map(([name, field]) => ({ name, value: current[name] ?? '', help: field.description ?? '' }));
  return { summary: route.summary, action: ctx.path, fields };
}
