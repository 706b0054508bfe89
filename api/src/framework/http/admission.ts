import { authenticate, requirePrincipal } from '../auth/authenticate.ts';
import { CHALLENGES, HttpsRequired, NotAuthenticated, NotAuthorized } from '../auth/errors.ts';
import type { AuthRequest, AuthStrategy, Principal } from '../auth/principal.ts';
import { countRequest } from '../rate-limits/count-request.ts';
import type { RateLimitClass } from '../rate-limits/policy.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';
import type { AuthRequirement, RouteScope } from './route.ts';

export interface AdmissionOptions {
  strategies: readonly AuthStrategy[];
  /** Counts every admitted request; absent = no limits. */
  rateLimiter?: RateLimiter;
  /** OAUTH2_HTTPS_ONLY: a request authenticated by a bearer token over plain http is a 403. */
  httpsOnly?: boolean;
}

/** What a resource asks of its callers (a route's declaration: auth, scope, rateLimit). */
export interface Gate {
  auth: Exclude<AuthRequirement, 'public'>;
  scope: RouteScope;
  rateLimit: RateLimitClass;
}

export interface Admitted {
  principal: Principal;
  /** The rate limit's verdict for the answer (X-RateLimit-*); absent when nothing was counted. */
  rateLimitHeaders?: Readonly<Record<string, string>>;
}

/**
 * Authenticates a request and counts it: authentication, then permission (the 401s), then https,
 * then the rate limit. The one admission of the API's routes
 * (http/mount.ts) and of the hot path, which answers nothing but a 429 itself and leaves every
 * other refusal to the application. Refusals throw the errors the contract answers with
 * (errorAnswer maps them): NotAuthenticated, AuthenticationFailed, CsrfFailed, NotAuthorized,
 * HttpsRequired, Throttled.
 */
export async function admit(options: AdmissionOptions, req: AuthRequest, gate: Gate): Promise<Admitted> {
  const challenge = gate.auth === 'oauth2' ? CHALLENGES.bearer : CHALLENGES.any;
  const principal = requirePrincipal(await authenticate(options.strategies, req), challenge);
  // An OAuth2-only resource ignores an API key, as the original does: "not provided". A web
  // session is accepted there too (upstream's OAuth-only views take OAuth2 and Session).
  if (gate.auth === 'oauth2' && principal.strategy === 'token') throw new NotAuthenticated(challenge);
  if (!principal.scopes.includes(gate.scope)) throw new NotAuthorized();
  const oauth2Only = principal.strategy === 'oauth2' || gate.auth === 'oauth2';
  if (oauth2Only && options.httpsOnly && !req.secure) throw new HttpsRequired();
  // Counted last, so a refused request costs no count, and before anything else of the request is
  // read or checked.
  const rateLimitHeaders = options.rateLimiter
    ? await countRequest(options.rateLimiter, principal, gate.rateLimit)
    : undefined;
  return { principal, rateLimitHeaders };
}
