import http from 'node:http';
import { EarshotError } from '@earshot/common';
import type { Context, Next } from 'koa';
import { CHALLENGES, type Challenging } from '../auth/errors.ts';

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
      if (err instanceof EarshotError) {
        ctx.status = err.status;
        ctx.body = { detail: isFieldMap(err.details) ? err.details : err.message };
        if (err.status === 401) ctx.set('WWW-Authenticate', challengeOf(err));
        return;
      }
      const status = (err as { status?: number; expose?: boolean }).status;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        // Koa/http-errors raised by body parsing and the like: the message is meant for the client.
        ctx.status = status;
        ctx.body = { detail: (err as Error).message };
        return;
      }
      ctx.state.log?.error({ err }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { detail: 'Internal server error.' };
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

function defaultDetail(status: number, method: string): string {
  if (status === 404) return 'Not found.';
  if (status === 405) return `Method "${method}" not allowed.`;
  return http.STATUS_CODES[status] ?? 'Error';
}
