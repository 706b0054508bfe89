import http from 'node:http';
import { isCatalogueUnavailable } from '@earshot/catalogue';
import { EarshotError } from '@earshot/common';
import type { Context, Next } from 'koa';
import { CHALLENGES, type Challenging } from '../auth/errors.ts';
import { noteUnavailable } from './unavailable-log.ts';

/**
 * Turns every failure into a status code and a `{"detail": …}` body. Errors meant for users
 * (EarshotError) keep their message; anything else is logged and answered with a generic 500.
 */
export function errorHandler() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status >= 400 && (ctx.body === undefined || ctx.body === null)) {
        const status = ctx.status;
        ctx.body = { detail: defaultDetail(status, ctx.method) };
        ctx.status = status; // assigning a body must not change the status
      }
      // Every 401 says how to authenticate (RFC 7235), also those a handler answered itself.
      if (ctx.status === 401 && !ctx.response.get('WWW-Authenticate'))
        ctx.set('WWW-Authenticate', CHALLENGES.any);
    } catch (err) {
      const answer = errorAnswer(err, ctx);
      ctx.status = answer.status;
      ctx.body = { detail: answer.detail };
    }
  };
}

function challengeOf(err: EarshotError): string {
  const challenge = (err as Partial<Challenging>).challenge;
  return typeof challenge === 'string' ? challenge : CHALLENGES.any;
}

/**
 * The status and `detail` an error is answered with: a user-facing error keeps its message, an
 * http-error from Koa its status; anything else is logged and becomes a generic 500. A 401 gets
 * its `WWW-Authenticate` challenge here.
 */
export function errorAnswer(err: unknown, ctx: Context): { status: number; detail: unknown } {
  if (err instanceof EarshotError) {
    if (err.status === 401) ctx.set('WWW-Authenticate', challengeOf(err));
    if (err.status === 503) noteUnavailable(ctx, err);
    return { status: err.status, detail: isFieldMap(err.details) ? err.details : err.message };
  }
  const status = (err as { status?: number; expose?: boolean }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Koa/http-errors raised by body parsing and the like: the message is meant for the client.
    return { status, detail: (err as Error).message };
  }
  if (isCatalogueUnavailable(err)) return unavailable(err, ctx);
  ctx.state.log?.error({ err }, 'unhandled error');
  return { status: 500, detail: 'Internal server error.' };
}

/** Seconds a client is asked to wait when the database is out of reach (a restart takes a few). */
export const UNAVAILABLE_RETRY_AFTER_S = 5;
export const UNAVAILABLE_DETAIL =
  'The service cannot reach its database at the moment. Please try again shortly.';

/**
 * The database out of reach (down, restarting, the network gone) is no fault of the request and
 * passes: a 503 with Retry-After, as a client library knows to retry, not a 500 that looks like a bug.
 */
function unavailable(err: unknown, ctx: Context): { status: number; detail: string } {
  ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
  noteUnavailable(ctx, err); // logged once the answer is known (unavailable-log.ts)
  return { status: 503, detail: UNAVAILABLE_DETAIL };
}

/** Per-field validation messages (`{"rating": ["…"]}`) are shown as they are; other details stay in logs. */
function isFieldMap(details: unknown): details is Record<string, string[]> {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return false;
  const values = Object.values(details);
  return values.length > 0 && values.every((v) => Array.isArray(v) && v.every((m) => typeof m === 'string'));
}

export function defaultDetail(status: number, method: string): string {
  if (status === 404) return 'Not found.';
  if (status === 405) return `Method "${method}" not allowed.`;
  return http.STATUS_CODES[status] ?? 'Error';
}
