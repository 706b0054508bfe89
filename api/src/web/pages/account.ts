import type { Context } from 'koa';
import { render } from '../render.ts';
import { webState } from '../state.ts';

/** GET /apiv2/account/: where a sign-in lands by default (behind requireSignedIn). */
export function showAccount() {
  return async (ctx: Context) => {
    const user = webState(ctx).user;
    const joined = user?.date_joined ? new Date(user.date_joined) : undefined;
    await render(ctx, 'account', {
      joined: joined?.toISOString() ?? '',
      joinedText:
        joined?.toLocaleDateString('en-GB', { year: 'numeric', month: 'long', day: 'numeric' }) ?? '',
    });
  };
}
