import { signIn } from '@earshot/services';
import type { Context } from 'koa';
import type { WebDeps } from '../deps.ts';
import { render } from '../render.ts';
import { safeNext } from '../safe-next.ts';
import { formFields, webState } from '../state.ts';

/** GET /apiv2/login/: the form (a signed-in person goes straight on to `next`). */
export function showSignIn(deps: WebDeps) {
  return async (ctx: Context) => {
    const next = typeof ctx.query.next === 'string' ? ctx.query.next : undefined;
    if (webState(ctx).user) return ctx.redirect(safeNext(next));
    const notice = ctx.query.signed_out !== undefined ? 'You are signed out.' : undefined;
    await render(ctx, 'login', { next, notice, signupEnabled: deps.signupEnabled });
  };
}

/**
 * POST /apiv2/login/: signs in and goes to `next` (same origin only) with a new session. Wrong
 * credentials: the form again, 400. Too many failures: the form with the wait, 429 + Retry-After.
 */
export function submitSignIn(deps: WebDeps) {
  return async (ctx: Context) => {
    const form = formFields(ctx);
    const login = form.login ?? '';
    const next = form.next || undefined;
    const outcome = await signIn(deps.db, deps.throttle, {
      login,
      password: form.password ?? '',
      address: ctx.ip,
    });
    if (outcome.kind === 'signed-in') {
      await webState(ctx).sessions?.signIn(outcome.user.id);
      ctx.status = 303;
      ctx.redirect(safeNext(next));
      ctx.status = 303;
      return;
    }
    const page = { login, next, signupEnabled: deps.signupEnabled };
    if (outcome.kind === 'throttled') {
      const wait = waitText(outcome.retryAfterMs);
      ctx.set('Retry-After', String(Math.ceil(outcome.retryAfterMs / 1000)));
      ctx.status = 429;
      await render(ctx, 'login', {
        ...page,
        error:
          outcome.scope === 'account'
            ? `Too many failed sign-ins for this account from your network. Try again in ${wait}.`
            : `Too many failed sign-ins from your network. Try again in ${wait}.`,
      });
      return;
    }
    ctx.status = 400;
    await render(ctx, 'login', {
      ...page,
      error: 'The username or email and password do not match an account.',
    });
  };
}

function waitText(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  if (minutes < 90) return minutes === 1 ? '1 minute' : `${minutes} minutes`;
  const hours = Math.ceil(minutes / 60);
  return `${hours} hours`;
}
