import type { Context, Next } from 'koa';
import { renderError } from './render.ts';
import { webState } from './state.ts';

/** Guards a moderators' page (after requireSignedIn): anyone else gets a 403 page. */
export function requireModerator() {
  return async (ctx: Context, next: Next) => {
    if (webState(ctx).user?.is_moderator) return next();
    await renderError(ctx, 403, {
      title: 'Moderators only',
      message: 'This page is for the moderators of this service.',
    });
  };
}
