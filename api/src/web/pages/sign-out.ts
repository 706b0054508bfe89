import type { Context } from 'koa';
import { render } from '../render.ts';
import { LOGIN_PATH } from '../require-signed-in.ts';
import { webState } from '../state.ts';

/** GET /apiv2/logout/: a confirmation form (signing out changes state, so it takes a POST). */
export function showSignOut() {
  return async (ctx: Context) => {
    if (!webState(ctx).user) return ctx.redirect(LOGIN_PATH);
    await render(ctx, 'logout');
  };
}

/** POST /apiv2/logout/: the session is deleted, the cookie cleared, the sign-in page says so. */
export function submitSignOut() {
  return async (ctx: Context) => {
    await webState(ctx).sessions?.signOut();
    ctx.redirect(`${LOGIN_PATH}?signed_out=1`);
    ctx.status = 303;
  };
}
