import { type OAuth2Service, PERMISSION_GRANTED_PATH } from '@earshot/services';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { APP_PERMISSIONS_PATH, showAppPermissions, submitRevoke } from './pages/app-permissions.ts';
import { logoutAndAuthorize, showAuthorize, submitAuthorize } from './pages/oauth2-authorize.ts';
import { showPermissionGranted } from './pages/oauth2-code.ts';
import { requireSignedIn } from './require-signed-in.ts';

/**
 * The OAuth2 pages (docs/api.md "OAuth2"): authorize and logout_and_authorize, the code page, the
 * authorized applications with their revoke forms. `common` runs first on each: HTML error pages,
 * the https check, the session, the CSRF check.
 */
export function oauth2Pages(router: Router, oauth2: OAuth2Service, common: Middleware[]): void {
  const page = (method: 'get' | 'post', path: string, ...handlers: Middleware[]) => {
    // Upstream's trailing slashes are optional on these paths.
    router[method]([path, path.replace(/\/$/, '')], ...common, ...handlers);
  };
  page('get', '/apiv2/oauth2/authorize/', showAuthorize(oauth2));
  page('post', '/apiv2/oauth2/authorize/', submitAuthorize(oauth2));
  page('get', '/apiv2/oauth2/logout_and_authorize/', logoutAndAuthorize(oauth2));
  // The consent page posts to authorize/; a form posted here answers the same way.
  page('post', '/apiv2/oauth2/logout_and_authorize/', submitAuthorize(oauth2));
  page('get', PERMISSION_GRANTED_PATH, showPermissionGranted());
  page('get', APP_PERMISSIONS_PATH, requireSignedIn(), showAppPermissions(oauth2));
  page(
    'post',
    `${APP_PERMISSIONS_PATH}revoke_permission/:clientId/`,
    requireSignedIn(),
    submitRevoke(oauth2),
  );
}
