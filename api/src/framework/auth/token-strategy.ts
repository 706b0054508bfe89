import type { RateLimitLevelName } from '@earshot/catalogue';
import { AuthenticationFailed } from './errors.ts';
import type { AuthRequest, AuthStrategy, Principal } from './principal.ts';

/** A credential found by its API key (the client secret). */
export interface ApiKeyCredential {
  clientId: string;
  userId: number;
  username: string;
  /** False for suspended or not yet approved credentials. */
  active: boolean;
  /** Absent = `standard`. */
  rateLimitLevel?: RateLimitLevelName;
}

export type FindCredentialByKey = (key: string) => Promise<ApiKeyCredential | undefined>;

/**
 * The API key strategy: `Authorization: Token KEY` or `?token=KEY`. Read-only by design, so the
 * principal only ever has the `read` scope.
 */
export function tokenStrategy(findByKey: FindCredentialByKey): AuthStrategy {
  return {
    name: 'token',
    async authenticate(req: AuthRequest): Promise<Principal | undefined> {
      const key = readKey(req);
      if (key === undefined) return undefined;
      const credential = await findByKey(key);
      if (!credential) throw new AuthenticationFailed('Invalid token');
      if (!credential.active) {
        throw new AuthenticationFailed('Suspended token or token pending for approval');
      }
      return {
        strategy: 'token',
        clientId: credential.clientId,
        userId: credential.userId,
        username: credential.username,
        scopes: ['read'],
        rateLimitLevel: credential.rateLimitLevel,
      };
    },
  };
}

function readKey(req: AuthRequest): string | undefined {
  const header = req.authorization?.trim();
  if (header && /^token(\s|$)/i.test(header)) {
    const parts = header.split(/\s+/);
    if (parts.length === 1) throw new AuthenticationFailed('Invalid token header. No credentials provided.');
    if (parts.length > 2) {
      throw new AuthenticationFailed('Invalid token header. Token string should not contain spaces.');
    }
    return parts[1];
  }
  const fromQuery = req.query.token;
  if (fromQuery !== undefined) {
    if (fromQuery === '') throw new AuthenticationFailed('Invalid token');
    return fromQuery;
  }
  return undefined;
}
