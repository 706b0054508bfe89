import type { RateLimitLevelName } from '@earshot/catalogue';

/** The caller a request acts for, whichever strategy recognized it. */
export interface Principal {
  strategy: 'token' | 'oauth2';
  /** The API credential (application) used; rate limits are counted per credential. */
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
