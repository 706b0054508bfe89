import { NotFoundError } from '@earshot/common';
import type { OAuth2Service } from '@earshot/services';
import type { Context } from 'koa';
import { render, renderError } from '../render.ts';
import { webState } from '../state.ts';

export const APP_PERMISSIONS_PATH = '/home/app_permissions/';

/** The revoke form's address for one application (upstream's revoke_permission/<client_id>/). */
export function revokePath(clientId: string): string {
  return `${APP_PERMISSIONS_PATH}revoke_permission/${encodeURIComponent(clientId)}/`;
}

/** GET /home/app_permissions/ (signed in): the applications holding a token for the user. */
export function showAppPermissions(oauth2: OAuth2Service) {
  return async (ctx: Context) => {
    const user = webState(ctx).user;
    if (!user) return;
    const applications = await oauth2.listAuthorizedApplications(user.id);
    await render(ctx, 'app-permissions', {
      notice:
        ctx.query.revoked !== undefined
          ? 'Access revoked. The application’s tokens no longer work.'
          : undefined,
      applications: applications.map((app) => ({
        name: app.name,
        description: app.description,
        url: /^https?:\/\//i.test(app.url) ? app.url : '',
        scope: app.scope,
        authorizedAt: app.authorizedAt.toISOString(),
        authorizedText: app.authorizedAt.toLocaleDateString('en-GB', {
          year: 'numeric',
          month: 'long',
          day: 'numeric',
        }),
        revokeAction: revokePath(app.clientId),
      })),
    });
  };
}

/**
 * POST /home/app_permissions/revoke_permission/<client_id>/ (signed in, CSRF checked): the
 * application's tokens stop working (401 'Invalid token'); back to the list with a notice.
 */
export function submitRevoke(oauth2: OAuth2Service) {
  return async (ctx: Context) => {
    const user = webState(ctx).user;
    if (!user) return;
    try {
      await oauth2.revokeApplication(user.id, String(ctx.params.clientId ?? ''));
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      return renderError(ctx, 404, {
        title: 'No such application',
        message: 'There is no application with this client id.',
        retryPath: APP_PERMISSIONS_PATH,
      });
    }
    ctx.redirect(`${APP_PERMISSIONS_PATH}?revoked=1`);
    ctx.status = 303;
  };
}
