import { AuthenticationFailed, CHALLENGES } from './errors.ts';
import type { AuthRequest, AuthStrategy, Principal } from './principal.ts';

/** What a bearer token is worth now, as the OAuth2 strategy needs it. */
export type BearerCheck =
  | { status: 'valid'; principal: Principal; expiresAt: number }
  | { status: 'expired' | 'invalid' };

export type CheckBearerToken = (token: string) => Promise<BearerCheck>;

/**
 * The OAuth2 strategy: `Authorization: Bearer TOKEN`. An expired token is 401 'Expired token', a
 * revoked, replaced or unknown one 401 'Invalid token' (the contract's wording). The https rule is
 * applied after authentication (mount.ts, the hot path), as the original orders its checks.
 */
export function bearerStrategy(check: CheckBearerToken): AuthStrategy {
  return {
    name: 'oauth2',
    async authenticate(req: AuthRequest): Promise<Principal | undefined> {
      const header = req.authorization;
      if (!header || !/^bearer(\s|$)/i.test(header.trimStart())) return undefined;
      const parts = header.trim().split(/\s+/);
      if (parts.length !== 2) throw new AuthenticationFailed('Invalid token', CHALLENGES.bearerInvalid);
      const result = await check(parts[1]);
      if (result.status === 'valid') return result.principal;
      throw result.status === 'expired'
        ? new AuthenticationFailed('Expired token', CHALLENGES.bearerExpired)
        : new AuthenticationFailed('Invalid token', CHALLENGES.bearerInvalid);
    },
  };
}
