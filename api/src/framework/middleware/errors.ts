import http from 'node:http';
import { isCatalogueContention, isCatalogueUnavailable } from '@earshot/catalogue';
import { EarshotError } from '@earshot/common';
import type { Context, Next } from 'koa';
import { CHALLENGES, type Challenging } from '../auth/errors.ts';
import { Throttled } from '../rate-limits/throttled.ts';
import { noteUnavailable } from './unavailable-log.ts';

/** How an error is answered: the status, the body's `detail` and the headers that go with them. */
export interface ErrorAnswer {
  status: number;
  detail: unknown;
  headers: Readonly<Record<string, string>>;
}

/** Seconds a client is asked to wait when the database is out of reach (a restart takes a few). */
export const UNAVAILABLE_RETRY_AFTER_S = 5;
export const UNAVAILABLE_DETAIL =
  'The service cannot reach its database at the moment. Please try again shortly.';

/**
 * Seconds a client is asked to wait when its write met other writes of the same rows (a deadlock
 * that kept recurring): they are over in a moment.
 */
export const CONTENTION_RETRY_AFTER_S = 1;
export const CONTENTION_DETAIL =
  'The change could not be saved because of other changes made at the same moment. Please try again.';

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The one mapping of a failure to its answer, for the application (errorHandler, version 1's
 * legacyErrors) and the hot path alike. A user-facing error (EarshotError) keeps its message (or
 * its per-field messages), a 401 gets its `WWW-Authenticate` challenge and a 429 its rate-limit
 * headers; an http-error from Koa keeps its status. The database out of reach is no fault of the
 * request and passes: a 503 with Retry-After, as a client library knows to retry, not a 500 that
 * looks like a bug; so does a write that PostgreSQL kept ending as a deadlock's victim (or for a
 * serialization failure), which the catalogue ran again as often as it would. Anything else goes
 * to `logUnexpected` and becomes a generic 500.
 */
export function errorAnswer(err: unknown, logUnexpected: (err: unknown) => void): ErrorAnswer {
  if (isCatalogueContention(err)) {
    return {
      status: 503,
      detail: CONTENTION_DETAIL,
      headers: { 'Retry-After': String(CONTENTION_RETRY_AFTER_S) },
    };
  }
  if (err instanceof EarshotError) {
    const detail = isFieldMap(err.details) ? err.details : err.message;
    if (err.status === 401) {
      return { status: 401, detail, headers: { 'WWW-Authenticate': challengeOf(err) } };
    }
    return { status: err.status, detail, headers: err instanceof Throttled ? err.headers : NO_HEADERS };
  }
  const status = (err as { status?: number; expose?: boolean }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Koa/http-errors raised by body parsing and the like: the message is meant for the client.
    return { status, detail: (err as Error).message, headers: NO_HEADERS };
  }
  if (isCatalogueUnavailable(err)) {
    return {
      status: 503,
      detail: UNAVAILABLE_DETAIL,
      headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) },
    };
  }
  logUnexpected(err);
  return { status: 500, detail: 'Internal server error.', headers: NO_HEADERS };
}

/**
 * errorAnswer on the application's path: the answer's headers go on the response, and a 503's
 * cause is noted for its log line (unavailable-log.ts), which is written once the answer is known.
 */
export function setErrorAnswer(err: unknown, ctx: Context): ErrorAnswer {
  const answer = errorAnswer(err, (unexpected) =>
    ctx.state.log?.error({ err: unexpected }, 'unhandled error'),
  );
  ctx.set(answer.headers);
  if (answer.status === 503) noteUnavailable(ctx, err);
  return answer;
}

/**
 * Turns every failure into a status code and a `{"detail": …}` body (errorAnswer); an answer
 * without a body gets the status's own words.
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
      const answer = setErrorAnswer(err, ctx);
      ctx.status = answer.status;
      ctx.body = { detail: answer.detail };
    }
  };
}

function challengeOf(err: EarshotError): string {
  const challenge = (err as Partial<Challenging>).challenge;
  return typeof challenge === 'string' ? challenge : CHALLENGES.any;
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
