import { checkAccessToken, type Db, rateLimitLevelName } from '@earshot/catalogue';
import type { CheckBearerToken } from '../framework/auth/bearer-strategy.ts';

/** Judges a bearer token against the catalogue with the service's clock. */
export function bearerTokenCheck(db: Db, now: () => Date): CheckBearerToken {
  return async (token) => {
    const check = await checkAccessToken(db, token, now());
    if (check.status === 'expired') return { status: 'expired' };
    if (check.status !== 'valid') return { status: 'invalid' };
    const t = check.token;
    const scopes = t.scope.split(' ').filter((s): s is 'read' | 'write' => s === 'read' || s === 'write');
    return {
      status: 'valid',
      expiresAt: t.expires_at.getTime(),
      principal: {
        strategy: 'oauth2',
        clientId: t.client_id,
        userId: t.user_id,
        username: t.username,
        scopes,
        // An application acting for a user is throttled at its credential's level, as with its key.
        rateLimitLevel: rateLimitLevelName(t.rate_limit_level),
      },
    };
  };
}
