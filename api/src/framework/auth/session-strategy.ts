import { timingSafeEqual } from 'node:crypto';
import { CsrfFailed } from './errors.ts';
import type { AuthRequest, AuthStrategy, Principal } from './principal.ts';

/** A live, signed-in web session as the strategy needs it. */
export interface SessionIdentity {
  userId: number;
  username: string;
  csrfToken: string;
}

/** The signed-in session a cookie names, or undefined (unknown, expired, or a visitor's). */
export type ResumeSession = (sessionId: string) => Promise<SessionIdentity | undefined>;

/** The cookie that names a browser's web session (web/session.ts sets it, the strategy reads it). */
export const SESSION_COOKIE = 'earshot_session';
/** The hidden field every form of the web layer carries (templates/partials/csrf-field.eta). */
export const CSRF_FIELD = 'csrf_token';
/** Scripts of later pages may send the token in this header instead. */
export const CSRF_HEADER = 'X-CSRF-Token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The browseable API's strategy (the contract: "It authenticates with the standard web session"):
 * a browser signed in on the web pages calls the API as that user. It runs after the token and
 * bearer strategies, so a request carrying a key is judged by its key. A cookie that names no
 * signed-in session is no credential (the request is then a 401 like any without one), not an
 * error. Unsafe methods must send the session's CSRF token (form field or header), as upstream's
 * SessionAuthentication enforces: otherwise any site could make a signed-in browser post.
 * Counted per user at the standard level (upstream keys session requests by user id at level 1).
 */
export function sessionStrategy(resume: ResumeSession): AuthStrategy {
  return {
    name: 'session',
    async authenticate(req: AuthRequest): Promise<Principal | undefined> {
      if (!req.sessionId) return undefined;
      const session = await resume(req.sessionId);
      if (!session) return undefined;
      if (!SAFE_METHODS.has((req.method ?? 'GET').toUpperCase())) {
        const sent = await req.csrfToken?.();
        if (!sent || !sameToken(sent, session.csrfToken)) throw new CsrfFailed();
      }
      return {
        strategy: 'session',
        ...sessionRateLimitSubject(session.userId),
        userId: session.userId,
        username: session.username,
        scopes: ['read', 'write'],
      };
    },
  };
}

/**
 * What a signed-in browser is counted as by the rate limits, on the browseable API and on the web
 * pages' forms alike: its user, at the standard level. One key for both, so the pages are no way
 * around the API's limits.
 */
export function sessionRateLimitSubject(userId: number): { clientId: string; rateLimitLevel: 'standard' } {
  return { clientId: `session:${userId}`, rateLimitLevel: 'standard' };
}

/** Compares a sent CSRF token with the session's in constant time. */
export function sameToken(sent: string, expected: string): boolean {
  const a = Buffer.from(sent, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
