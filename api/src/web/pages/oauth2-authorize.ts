import {
  type AuthorizationOutcome,
  type AuthorizationStart,
  authorizationRedirect,
  type OAuth2Service,
} from '@earshot/services';
import type { Context } from 'koa';
import { AUTHORIZE_PATH, authorizeParams, authorizeUrl, hiddenFields } from '../oauth2-params.ts';
import { render, renderError } from '../render.ts';
import { loginUrl } from '../require-signed-in.ts';
import { formFields, webState } from '../state.ts';

/** What each scope lets an application do, in the words the consent page uses. */
const SCOPE_TEXT: Record<string, string> = {
  read: 'See your account details (username, email) and everything you can see on earshot.',
  write: 'Upload, describe and edit your sounds, and comment, rate and bookmark as you.',
};

/**
 * GET /apiv2/oauth2/authorize/: asks the OAuth2 service what to do with the request (docs/api.md
 * "OAuth2") and does it: the sign-in page (coming back here), the consent page, a redirect to the
 * application (automatic grant or an error it can be told), or an error page it cannot.
 */
export function showAuthorize(oauth2: OAuth2Service) {
  return async (ctx: Context) => {
    const { params, repeated } = authorizeParams(ctx.query);
    if (!params) return repeatedParameter(ctx, repeated);
    const user = webState(ctx).user;
    const start = await oauth2.startAuthorization(params, user?.id);
    if (start.kind === 'sign-in') return ctx.redirect(loginUrl(authorizeUrl(params)));
    if (start.kind !== 'consent') return follow(ctx, start);
    const { application, scope } = start;
    await render(ctx, 'authorize', {
      application,
      applicationHost: hostOf(application.url),
      scopes: scope.map((name) => ({ name, text: SCOPE_TEXT[name] ?? name })),
      fields: hiddenFields(params),
      action: AUTHORIZE_PATH,
      switchUrl: `/apiv2/oauth2/logout_and_authorize/?${new URLSearchParams(params as Record<string, string>)}`,
    });
    allowFormTarget(ctx, application.redirectUri);
  };
}

/**
 * GET /apiv2/oauth2/logout_and_authorize/: the contract's way to force a new sign-in. The web
 * session ends, then the request continues as the authorize page would (which sends the visitor
 * to the sign-in page, coming back to /apiv2/oauth2/authorize/ with the same parameters).
 */
export function logoutAndAuthorize(oauth2: OAuth2Service) {
  const authorize = showAuthorize(oauth2);
  return async (ctx: Context) => {
    await webState(ctx).sessions?.signOut();
    await authorize(ctx);
  };
}

/**
 * POST /apiv2/oauth2/authorize/ (CSRF checked before): the consent form's answer. "Authorize"
 * (the `allow` field, as upstream's form names it) issues a code; anything else denies. Either
 * way the browser goes back to the application with `state` unchanged.
 */
export function submitAuthorize(oauth2: OAuth2Service) {
  return async (ctx: Context) => {
    const form = formFields(ctx);
    const { params, repeated } = authorizeParams(form);
    if (!params) return repeatedParameter(ctx, repeated);
    const user = webState(ctx).user;
    if (!user) {
      // The session ended while the page was open: sign in again, then the same question.
      ctx.redirect(loginUrl(authorizeUrl(params)));
      ctx.status = 303;
      return;
    }
    const outcome =
      form.allow !== undefined ? await oauth2.grant(user.id, params) : await oauth2.deny(params);
    await follow(ctx, outcome);
  };
}

/** A redirect to the application (302), or the error page the service chose. */
async function follow(
  ctx: Context,
  outcome: AuthorizationOutcome | Exclude<AuthorizationStart, { kind: 'sign-in' | 'consent' }>,
) {
  if (outcome.kind === 'redirect') {
    ctx.redirect(authorizationRedirect(outcome.redirectUrl));
    ctx.status = 302;
    return;
  }
  await renderError(ctx, outcome.status, {
    title: 'This authorization request cannot be answered',
    message: `${outcome.detail} Tell the application's developers; the request did not come back to them.`,
  });
}

function repeatedParameter(ctx: Context, name: string): Promise<void> {
  return renderError(ctx, 400, {
    title: 'This authorization request cannot be answered',
    message: `The parameter ${name} was given more than once.`,
  });
}

/**
 * The page's policy lets forms go only to this site; the consent form's answer is a redirect to the
 * application, and browsers hold redirects after a form to `form-action` too. So the application's
 * redirect address (its origin, or its scheme for an app's own `myapp:` address) is allowed here.
 */
function allowFormTarget(ctx: Context, redirectUri: string): void {
  let source: string;
  try {
    const url = new URL(redirectUri);
    source = url.origin !== 'null' ? url.origin : url.protocol;
  } catch {
    return;
  }
  if (!/^[a-z][a-z0-9+.-]*:(\/\/[^\s;,']+)?$/i.test(source)) return;
  const policy = ctx.response.get('Content-Security-Policy');
  ctx.set('Content-Security-Policy', policy.replace("form-action 'self'", `form-action 'self' ${source}`));
}

function hostOf(url: string): string | undefined {
  try {
    return url ? new URL(url).host : undefined;
  } catch {
    return undefined;
  }
}
