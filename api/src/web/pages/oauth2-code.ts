import type { Context } from 'koa';
import { render } from '../render.ts';

/**
 * GET /home/app_permissions/permission_granted/ (the services' PERMISSION_GRANTED_PATH): the
 * redirect target of applications without a web server. It shows the `code` of the redirect for
 * copying, or says the user denied access. Nothing is looked up: the code is in the address, and
 * the page (no-store, same-origin referrer) does not hand it on.
 */
export function showPermissionGranted() {
  return async (ctx: Context) => {
    const first = (name: string) => {
      const value = ctx.query[name];
      return (Array.isArray(value) ? value[0] : value) || undefined;
    };
    await render(ctx, 'permission-granted', { code: first('code'), error: first('error') });
  };
}
