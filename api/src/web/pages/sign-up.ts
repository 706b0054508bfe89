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

/** POST /apiv2/signup/: creates the account through the accounts use case and signs it in. */
export function submitSignUp(deps: WebDeps) {
  return async (ctx: Context) => {
    const form = formFields(ctx);
    const input = { username: form.username ?? '', email: form.email ?? '', password: form.password ?? '' };
    try {
      const userId = await signUp(deps.db, input);
      await webState(ctx).sessions?.signIn(userId);
      ctx.redirect(SIGNED_IN_LANDING);
      ctx.status = 303;
    } catch (err) {
      if (!(err instanceof EarshotError) || err.status >= 500) throw err;
      ctx.status = err.status === 409 ? 409 : 400;
      await render(ctx, 'signup', {
        username: input.username,
        email: input.email,
        minPasswordLength: MIN_PASSWORD_LENGTH,
        error: err.message.charAt(0).toUpperCase() + err.message.slice(1),
      });
    }
  };
}
