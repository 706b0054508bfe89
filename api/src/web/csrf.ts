import type { Context, Next } from 'koa';
import { CSRF_FIELD, CSRF_HEADER, sameToken } from '../framework/auth/session-strategy.ts';
import { readBodyParams } from '../framework/http/body-params.ts';
import { renderError } from './render.ts';
import { webState } from './state.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses every unsafe request of the web layer whose token is not the session's (synchronizer
 * token: the session row holds it, the form echoes it). The form is read here, once, into
 * `ctx.state.form`. Refused: a 403 page saying what to do.
 */
export function csrfProtection() {
  return async (ctx: Context, next: Next) => {
    if (SAFE_METHODS.has(ctx.method)) return next();
    const state = webState(ctx);
    state.form = await readBodyParams(ctx);
    const sent = state.form[CSRF_FIELD] ?? ctx.get(CSRF_HEADER);
    const expected = state.webSession?.csrfToken;
    if (!expected || !sameToken(sent, expected)) {
      await renderError(ctx, 403, {
        title: 'This form has expired',
        message:
          'The form was sent without a valid security token: it may have stayed open too long, or come from another site. Go back, reload the page and send it again.',
        retryPath: ctx.method === 'POST' ? ctx.path : undefined,
      });
      return;
    }
    await next();
  };
}
