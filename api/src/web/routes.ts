import { EarshotError } from '@earshot/common';
import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { newRouter } from '../http/router.ts';
import { csrfProtection } from './csrf.ts';
import type { WebDeps } from './deps.ts';
import { requireHttps } from './https-only.ts';
import { oauth2Pages } from './oauth2-routes.ts';
import { showAccount } from './pages/account.ts';
import { showApply, submitApply, submitRegenerate, submitRevoke } from './pages/apply.ts';
import { moderationFile, showModeration, submitModeration } from './pages/moderation.ts';
import { showSignIn, submitSignIn } from './pages/sign-in.ts';
import { showSignOut, submitSignOut } from './pages/sign-out.ts';
import { showSignUp, submitSignUp } from './pages/sign-up.ts';
import { renderError } from './render.ts';
import { requireModerator } from './require-moderator.ts';
import { requireSignedIn } from './require-signed-in.ts';
import { webSessions } from './session.ts';

/**
 * The web pages. Each route runs: HTML error pages → session (ctx.state.user) → CSRF check on
 * unsafe methods → the page. A later page is one more `page(...)` line here (docs/web.md).
 */
export function webRoutes(deps: WebDeps): Router {
  // Knows every method: a TRACE anywhere is a 405 or a 404, not the 501 of a router that never heard of it.
  const router = newRouter();
  const common: Middleware[] = [htmlErrors(), webSessions(deps.db), csrfProtection()];
  const page = (method: 'get' | 'post', path: string, ...handlers: Middleware[]) => {
    // Both spellings answer, as upstream's trailing slashes are optional on its pages.
    router[method]([path, path.replace(/\/$/, '')], ...common, ...handlers);
  };

  page('get', '/apiv2/login/', showSignIn(deps));
  page('post', '/apiv2/login/', submitSignIn(deps));
  page('get', '/apiv2/logout/', showSignOut());
  page('post', '/apiv2/logout/', submitSignOut());
  page('get', '/apiv2/account/', requireSignedIn(), showAccount());
  page('get', '/apiv2/apply/', requireSignedIn(), showApply(deps));
  page('post', '/apiv2/apply/', requireSignedIn(), submitApply(deps));
  page('post', '/apiv2/apply/revoke/', requireSignedIn(), submitRevoke(deps));
  page('post', '/apiv2/apply/regenerate/', requireSignedIn(), submitRegenerate(deps));
  page('get', '/apiv2/moderation/', requireSignedIn(), requireModerator(), showModeration(deps));
  page('post', '/apiv2/moderation/', requireSignedIn(), requireModerator(), submitModeration(deps));
  // Not behind requireSignedIn: a visitor gets the same 404 as a non-moderator.
  router.get('/apiv2/moderation/sounds/:id/:file', ...common, moderationFile(deps));
  if (deps.oauth2) {
    const https = requireHttps(deps.oauth2HttpsOnly ?? true);
    oauth2Pages(router, deps.oauth2, [htmlErrors(), https, webSessions(deps.db), csrfProtection()]);
  }
  if (deps.signupEnabled) {
    page('get', '/apiv2/signup/', showSignUp());
    page('post', '/apiv2/signup/', submitSignUp(deps));
  } else {
    const paths = ['/apiv2/signup/', '/apiv2/signup'];
    router.get(paths, signUpDisabled());
    router.post(paths, signUpDisabled());
  }
  return router;
}

/** With SIGNUP_ENABLED off the page does not exist: a 404, without checking the form's token. */
function signUpDisabled(): Middleware {
  return (ctx: Context) =>
    renderError(ctx, 404, {
      title: 'Page not found',
      message: 'Accounts are created by the administrators of this service.',
    });
}

/** Failures of a page become HTML pages (the API's JSON error handler stays outside). */
function htmlErrors(): Middleware {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof EarshotError && err.status < 500) {
        await renderError(ctx, err.status, { title: 'The request could not be read', message: err.message });
        return;
      }
      ctx.state.log?.error({ err }, 'web page failed');
      await renderError(ctx, 500, {
        title: 'Something went wrong',
        message: 'The page could not be shown. Try again in a moment.',
      });
    }
  };
}
