import type { RateLimitLevelName } from '@earshot/catalogue';

/** The caller a request acts for, whichever strategy recognized it. */
export interface Principal {
  strategy: 'token' | 'oauth2' | 'session';
  /**
   * The API credential (application) used; rate limits are counted per credential. A web session
   * has none: it is `session:<user id>`, so a signed-in browser is counted per user.
   */
  clientId: string;
  /** The user the request acts for: the credential owner (token) or the authorizing user (OAuth2). */
  userId: number;
  username: string;
  scopes: ReadonlyArray<'read' | 'write'>;
  /** The credential's rate-limit level; absent = `standard`. */
  rateLimitLevel?: RateLimitLevelName;
}

/** What a strategy needs from a request; kept off Koa so strategies are plain functions. */
export interface AuthRequest {
  authorization: string | undefined;
  query: Readonly<Record<string, string>>;
  secure: boolean;
  /** The request method; the session strategy refuses unsafe ones without the CSRF token. */
  method?: string;
  /** The web session cookie's value, when the request may authenticate with it (not on the hot path). */
  sessionId?: string;
  /** The CSRF token the request sent (header or form field), read only when a session needs it. */
  csrfToken?: () => Promise<string | undefined>;
}

/**
 * One way of proving who the caller is. Returns undefined when the request does not use this
 * strategy (so the next one is tried) and throws AuthenticationFailed when it does but is wrong.
 * OAuth2 bearer tokens plug in as another strategy.
 */
export interface AuthStrategy {
  name: Principal['strategy'];
  authenticate(req: AuthRequest): Promise<Principal | undefined>;
}
