import { EarshotError } from '@earshot/common';
import { MIN_PASSWORD_LENGTH, signUp } from '@earshot/services';
import type { Context } from 'koa';
import type { WebDeps } from '../deps.ts';
import { render } from '../render.ts';
import { SIGNED_IN_LANDING } from '../safe-next.ts';
import { formFields, webState } from '../state.ts';

/** GET /apiv2/signup/ (only when SIGNUP_ENABLED): the form. */
export function showSignUp() {
  return async (ctx: Context) => {
    if (webState(ctx).user) return ctx.redirect(SIGNED_IN_LANDING);
    await render(ctx, 'signup', { minPasswordLength: MIN_PASSWORD_LENGTH });
  };
}

/**
 * POST /apiv2/signup/: creates the account through the accounts use case and signs it in. The
 * answer is the same whether or not the email address is in use (the use case says why); too many
 * sign-ups from one address: the form with the wait, 429 + Retry-After.
 */
export function submitSignUp(deps: WebDeps) {
  return async (ctx: Context) => {
    const form = formFields(ctx);
    const input = { username: form.username ?? '', email: form.email ?? '', password: form.password ?? '' };
    const page = { username: input.username, email: input.email, minPasswordLength: MIN_PASSWORD_LENGTH };
    try {
      const outcome = await signUp(deps.db, deps.throttle, { ...input, address: ctx.ip });
      if (outcome.kind === 'throttled') {
        const minutes = Math.max(1, Math.ceil(outcome.retryAfterMs / 60_000));
        ctx.set('Retry-After', String(Math.ceil(outcome.retryAfterMs / 1000)));
        ctx.status = 429;
        await render(ctx, 'signup', {
          ...page,
          error: `Too many sign-ups from your network. Try again in ${minutes === 1 ? '1 minute' : `${minutes} minutes`}.`,
        });
        return;
      }
      await webState(ctx).sessions?.signIn(outcome.userId);
      ctx.redirect(SIGNED_IN_LANDING);
      ctx.status = 303;
    } catch (err) {
      if (!(err instanceof EarshotError) || err.status >= 500) throw err;
      ctx.status = err.status === 409 ? 409 : 400;
      await render(ctx, 'signup', {
        ...page,
        error: err.message.charAt(0).toUpperCase() + err.message.slice(1),
      });
    }
  };
}
