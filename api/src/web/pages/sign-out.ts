import type { Context } from 'koa';
import { render } from '../render.ts';
import { LOGIN_PATH } from '../require-signed-in.ts';
import { webState } from '../state.ts';

/**
 * GET /apiv2/logout/: signs out and redirects (302), as upstream answers it — unless the browser
 * says another site sent it there (`Sec-Fetch-Site: cross-site` or `same-site`): a link or an
 * image elsewhere must not end someone's session, so that request gets a confirmation form, whose
 * POST carries the CSRF token. Our own pages, a typed address and non-browser clients sign out.
 */
export function showSignOut() {
  return async (ctx: Context) => {
    if (!webState(ctx).user) return ctx.redirect(LOGIN_PATH);
    const site = ctx.get('Sec-Fetch-Site');
    if (site === 'cross-site' || site === 'same-site') return render(ctx, 'logout');
    await signOutAndRedirect(ctx);
    ctx.status = 302;
  };
}

async function signOutAndRedirect(ctx: Context): Promise<void> {
  await webState(ctx).sessions?.signOut();
  ctx.redirect(`${LOGIN_PATH}?signed_out=1`);
}

/** POST /apiv2/logout/: the session is deleted, the cookie cleared, the sign-in page says so. */
export function submitSignOut() {
  return async (ctx: Context) => {
    await signOutAndRedirect(ctx);
    ctx.status = 303;
  };
}
