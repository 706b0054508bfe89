import type { Context, Next } from 'koa';
import { defaultDetail, setErrorAnswer } from '../framework/middleware/errors.ts';

/** The `type` names of the original version 1 error bodies, by status. */
const TYPES: Record<number, string> = {
  400: 'BadRequest',
  401: 'AuthenticationError',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  429: 'Throttled',
};

const isLegacyPath = (path: string) => path === '/api' || path.startsWith('/api/');

/**
 * Version 1 errors (DECISIONS.md): the real status code and `detail`, plus the original's
 * `error`, `type`, `status_code` and `explanation` keys. A path under `/api/` that names no
 * resource is the original's `InvalidUrl`. Other paths pass through untouched.
 */
export function legacyErrors() {
  return async (ctx: Context, next: Next) => {
    if (!isLegacyPath(ctx.path)) return next();
    let status: number;
    let detail: unknown;
    let type: string | undefined;
    try {
      await next();
      if (ctx.status < 400 || (ctx.body !== undefined && ctx.body !== null)) return;
      status = ctx.status;
      if (status === 404) {
        detail = 'The introduced url is invalid.';
        type = 'InvalidUrl';
      } else {
        detail = defaultDetail(status, ctx.method);
      }
    } catch (err) {
      ({ status, detail } = setErrorAnswer(err, ctx));
      if (status === 401) detail = authenticationDetail(ctx, detail);
    }
    ctx.status = status;
    ctx.body = legacyErrorBody(status, detail, type);
  };
}

/**
 * Version 1's form of an error body (the hot path's version 1 answers too): version 2's `detail`
 * and the original's `error`, `type`, `status_code` and `explanation`.
 */
export function legacyErrorBody(status: number, detail: unknown, type?: string) {
  return {
    detail,
    error: true,
    type: type ?? TYPES[status] ?? (status >= 500 ? 'InternalError' : 'BadRequest'),
    status_code: status,
    explanation: typeof detail === 'string' ? detail : JSON.stringify(detail),
  };
}

/** The original's wording when no key came at all, or an `api_key` that names no credential. */
function authenticationDetail(ctx: Context, detail: unknown): unknown {
  const sent =
    ctx.query.api_key !== undefined || ctx.query.token !== undefined || ctx.get('Authorization') !== '';
  if (!sent) return 'Please include your api key as the api_key GET parameter';
  if (detail === 'Invalid token' && ctx.query.api_key !== undefined) return 'Supplied api_key does not exist';
  return detail;
}
