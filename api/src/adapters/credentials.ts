import { type Db, findApiKeyOwner, rateLimitLevelName } from '@earshot/catalogue';
import type { FindCredentialByKey } from '../framework/auth/token-strategy.ts';

/** Finds an API credential by its key (the client secret) for the token strategy. */
export function credentialByKey(db: Db): FindCredentialByKey {
  return async (key) => {
    const row = await findApiKeyOwner(db, key);
    if (!row) return undefined;
    return {
      clientId: row.client_id,
      userId: row.user_id,
      username: row.username,
      active: row.status === 'approved',
      rateLimitLevel: rateLimitLevelName(row.rate_limit_level),
    };
  };
}
