import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { Context } from 'koa';
import { PAGE_CSP } from '../framework/middleware/security-headers.ts';
import { stylesheetUrl } from './assets.ts';
import { webState } from './state.ts';

/**
 * Eta with autoEscape: `<%= %>` escapes HTML, `<%~ %>` (raw) is kept for the layout's body and
 * partials. Templates are compiled once and cached.
 */
const eta = new Eta({
  views: fileURLToPath(new URL('./templates/', import.meta.url)),
  autoEscape: true,
  autoTrim: [false, 'nl'],
  cache: true,
});

/** Headers of every page: nothing framed (clickjacking), nothing foreign loaded, nothing cached. */
function pageHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}

function html(ctx: Context, template: string, data: Record<string, unknown>, csrfToken?: string): void {
  const state = webState(ctx);
  pageHeaders(ctx);
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = eta.render(`./${template}`, {
    ...data,
    user: state.user,
    csrfToken,
    stylesheet: stylesheetUrl,
    path: ctx.path,
  });
}

/**
 * Renders a page of the web layer (templates/<template>.eta inside the base layout). Every page
 * may hold a form, so the browser gets a session (and its CSRF token) if it has none. The status
 * stays as set (200 by default); set `ctx.status` before or after as the page needs.
 */
export async function render(
  ctx: Context,
  template: string,
  data: Record<string, unknown> = {},
): Promise<void> {
  const status = ctx.status === 404 ? 200 : ctx.status; // Koa's "nothing yet" status
  const session = await webState(ctx).sessions?.ensure();
  html(ctx, template, data, session?.csrfToken);
  ctx.status = status;
}

export interface ErrorPage {
  title: string;
  message: string;
  /** A page to go back to (the form that was refused, for instance). */
  retryPath?: string;
  /** The words of the link to `retryPath` (default "Back to the form"). */
  retryLabel?: string;
}

/**
 * A page with the given status, without starting a session (the browseable API's pages: a signed-in
 * browser has one, a visitor gets no form).
 */
export function renderPage(
  ctx: Context,
  status: number,
  template: string,
  data: Record<string, unknown>,
): void {
  html(ctx, template, data, webState(ctx).webSession?.csrfToken);
  ctx.status = status;
}

/** An error page (403, 404, 429…): no new session is started for it. */
export async function renderError(ctx: Context, status: number, page: ErrorPage): Promise<void> {
  html(ctx, 'error', { ...page }, webState(ctx).webSession?.csrfToken);
  ctx.status = status;
}
