import { isCatalogueContention, isCatalogueUnavailable } from '@earshot/catalogue';
import { EarshotError } from '@earshot/common';
import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { ApiServices } from '../application/index.ts';
import { newRouter } from '../framework/http/router.ts';
import { CONTENTION_RETRY_AFTER_S, UNAVAILABLE_RETRY_AFTER_S } from '../framework/middleware/errors.ts';
import { noteUnavailable } from '../framework/middleware/unavailable-log.ts';
import { Throttled } from '../framework/rate-limits/throttled.ts';
import { csrfProtection } from './csrf.ts';
import type { WebDeps } from './deps.ts';
import { requireHttps, requireHttpsForPasswords } from './https-only.ts';
import { oauth2Pages } from './oauth2-routes.ts';
import { showAccount, submitAccount } from './pages/account.ts';
import { showApply, submitApply, submitRegenerate, submitRevoke } from './pages/apply.ts';
import { moderationFile, showModeration, submitModeration } from './pages/moderation.ts';
import { showBookmarks, showPack, showUser } from './pages/people.ts';
import { showHome, showSearch, showSound } from './pages/reading.ts';
import { showSignIn, submitSignIn } from './pages/sign-in.ts';
import { showSignOut, submitSignOut } from './pages/sign-out.ts';
import { showSignUp, submitSignUp } from './pages/sign-up.ts';
import { downloadSound, submitSoundAction } from './pages/sound-actions.ts';
import { suggestJson } from './pages/suggest.ts';
import {
  pendingJson,
  showDescribe,
  showPending,
  showUpload,
  submitDescribe,
  submitUpload,
} from './pages/upload.ts';
import { webhookPages } from './pages/webhooks.ts';
import { renderError } from './render.ts';
import { requireModerator } from './require-moderator.ts';
import { requireSignedIn } from './require-signed-in.ts';
import { webSessions } from './session.ts';
import { countWrites } from './write-limit.ts';

/**
 * The web pages. Each route runs: HTML error pages → session (ctx.state.user) → CSRF check on
 * unsafe methods → a signed-in user's form counted as a write (write-limit.ts) → the page. A later
 * page is one more `page(...)` line here (docs/web.md).
 */
export function webRoutes(deps: WebDeps): Router {
  // Knows every method: a TRACE anywhere is a 405 or a 404, not the 501 of a router that never heard of it.
  const router = newRouter();
  const common = webPageChain(deps);
  const page = (method: 'get' | 'post', path: string, ...handlers: Middleware[]) => {
    // Both spellings answer, as upstream's trailing slashes are optional on its pages.
    router[method]([path, path.replace(/\/$/, '')], ...common, ...handlers);
  };

  if (deps.api) {
    // The reading pages: plain addresses outside /apiv2/ and /api/ (the sound page at the `url`
    // the API gives each sound).
    router.get('/', ...common, showHome(deps.api));
    page('get', '/search/', showSearch(deps.api));
    page('get', '/people/:username/sounds/:id/', showSound(deps.api));
    if (deps.api.suggestions)
      router.get('/search/suggest.json', ...common, suggestJson(deps.api.suggestions));
  }
  // Checked before the session is read, so no cookie is set over a connection that is refused.
  const passwords = requireHttpsForPasswords(deps.oauth2HttpsOnly ?? true, deps.trustProxy ?? 0);
  const passwordPage = (method: 'get' | 'post', path: string, handler: Middleware) => {
    router[method]([path, path.replace(/\/$/, '')], htmlErrors(), passwords, ...common, handler);
  };
  passwordPage('get', '/apiv2/login/', showSignIn(deps));
  passwordPage('post', '/apiv2/login/', submitSignIn(deps));
  page('get', '/apiv2/logout/', showSignOut());
  // Ending a session is never refused for having written too much.
  const signOutPaths = ['/apiv2/logout/', '/apiv2/logout'];
  router.post(signOutPaths, ...webPageChain(deps, { countWrites: false }), submitSignOut());
  page('get', '/apiv2/account/', requireSignedIn(), showAccount());
  page('post', '/apiv2/account/', requireSignedIn(), submitAccount(deps));
  page('get', '/apiv2/apply/', requireSignedIn(), showApply(deps));
  page('post', '/apiv2/apply/', requireSignedIn(), submitApply(deps));
  page('post', '/apiv2/apply/revoke/', requireSignedIn(), submitRevoke(deps));
  page('post', '/apiv2/apply/regenerate/', requireSignedIn(), submitRegenerate(deps));
  page('get', '/apiv2/moderation/', requireSignedIn(), requireModerator(), showModeration(deps));
  page('post', '/apiv2/moderation/', requireSignedIn(), requireModerator(), submitModeration(deps));
  // Not behind requireSignedIn: a visitor gets the same 404 as a non-moderator.
  router.get('/apiv2/moderation/sounds/:id/:file', ...common, moderationFile(deps));
  if (deps.api) peoplePages(router, deps, deps.api);
  const webhooks = deps.api?.events?.webhooks;
  if (webhooks) {
    // The account's webhooks (pages/webhooks.ts): the same use cases as /apiv2/me/webhooks/.
    const hooks = webhookPages(webhooks);
    page('get', '/apiv2/account/webhooks/', requireSignedIn(), hooks.show(deps));
    page('post', '/apiv2/account/webhooks/', requireSignedIn(), hooks.add(deps));
    page('get', '/apiv2/account/webhooks/:id/', requireSignedIn(), hooks.log(deps));
    page('post', '/apiv2/account/webhooks/:id/delete/', requireSignedIn(), hooks.remove(deps));
    page('post', '/apiv2/account/webhooks/:id/enable/', requireSignedIn(), hooks.enable(deps));
  }
  if (deps.oauth2) {
    const https = requireHttps(deps.oauth2HttpsOnly ?? true);
    oauth2Pages(router, deps.oauth2, [
      htmlErrors(),
      https,
      webSessions(deps.db),
      csrfProtection(),
      countWrites(deps.rateLimiter),
    ]);
  }
  if (deps.signupEnabled) {
    passwordPage('get', '/apiv2/signup/', showSignUp());
    passwordPage('post', '/apiv2/signup/', submitSignUp(deps));
  } else {
    const paths = ['/apiv2/signup/', '/apiv2/signup'];
    router.get(paths, signUpDisabled());
    router.post(paths, signUpDisabled());
  }
  return router;
}

/** Error pages → session → CSRF check on unsafe methods → write limit: what runs before every page. */
export function webPageChain(deps: WebDeps, options: { countWrites?: boolean } = {}): Middleware[] {
  const chain = [htmlErrors(), webSessions(deps.db), csrfProtection()];
  return options.countWrites === false ? chain : [...chain, countWrites(deps.rateLimiter)];
}

/**
 * The pages of people, packs and sounds under upstream's addresses (the API's `url` fields), and
 * the upload pages: clients of the same use cases as the API's resources.
 */
function peoplePages(router: Router, deps: WebDeps, services: ApiServices): void {
  const common = webPageChain(deps);
  const signedIn = requireSignedIn();
  const sound = '/people/:username/sounds/:id';
  router.get(['/people/:username/', '/people/:username'], ...common, showUser(services));
  router.get(['/people/:username/packs/:id/', '/people/:username/packs/:id'], ...common, showPack(services));
  if (services.v1) {
    const bookmarks = showBookmarks(services.v1);
    router.get(['/people/:username/bookmarks/', '/people/:username/bookmarks'], ...common, bookmarks);
    router.get(
      ['/people/:username/bookmarks/category/:id/', '/people/:username/bookmarks/category/:id'],
      ...common,
      bookmarks,
    );
  }
  for (const action of ['rate', 'bookmark', 'comment'] as const) {
    router.post(`${sound}/${action}/`, ...common, signedIn, submitSoundAction(services, action));
  }
  router.get(`${sound}/download/`, ...common, signedIn, downloadSound(services));
  const writes = services.writes;
  if (!writes) return;
  router.get(['/upload/', '/upload'], ...common, signedIn, showUpload());
  // The CSRF token of a multipart upload is read with the file (pages/upload.ts), not before it; the
  // write is counted before the file is read.
  router.post(
    ['/upload/', '/upload'],
    htmlErrors(),
    webSessions(deps.db),
    signedIn,
    countWrites(deps.rateLimiter),
    submitUpload(writes),
  );
  router.get('/upload/describe/', ...common, signedIn, showDescribe(writes));
  router.post('/upload/describe/', ...common, signedIn, submitDescribe(writes));
  router.get('/upload/pending/', ...common, signedIn, showPending(writes));
  router.get('/upload/pending.json', ...common, signedIn, pendingJson(deps, writes));
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
      if (err instanceof Throttled) {
        await renderError(ctx, 429, throttledPage(err));
        return;
      }
      if (err instanceof EarshotError && err.status < 500) {
        await renderError(ctx, err.status, { title: 'The request could not be read', message: err.message });
        return;
      }
      if (isCatalogueContention(err)) {
        ctx.set('Retry-After', String(CONTENTION_RETRY_AFTER_S));
        noteUnavailable(ctx, err);
        await renderError(ctx, 503, {
          title: 'Not saved',
          message: 'Other changes were being made at the same moment. Send the form again.',
        });
        return;
      }
      if (isCatalogueUnavailable(err)) {
        ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
        noteUnavailable(ctx, err);
        await renderError(ctx, 503, {
          title: 'Back in a moment',
          message: 'The service cannot reach its database at the moment. Try again in a few seconds.',
        });
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

/** The page of a refused write: what happened and when the next one will pass (Retry-After says it too). */
function throttledPage(err: Throttled): { title: string; message: string } {
  const wait = err.retryAfterS;
  const when =
    wait === undefined ? 'Ask the administrators of this service.' : `Try again in ${duration(wait)}.`;
  return {
    title: 'Too many changes',
    message: `This change was not saved: you have sent more ratings, comments, bookmarks, uploads or other changes than the limit allows. ${when}`,
  };
}

function duration(seconds: number): string {
  if (seconds < 90) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  if (seconds < 90 * 60) return `${Math.ceil(seconds / 60)} minutes`;
  return `${Math.ceil(seconds / 3600)} hours`;
}
