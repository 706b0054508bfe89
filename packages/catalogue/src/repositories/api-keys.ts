import type { CredentialStatus, RateLimitLevel } from '../schema/database.ts';
import { apiKeyDigest } from './credentials.ts';
import type { Db } from './shared.ts';

/** Who an API key belongs to: what a request authenticated by it needs. */
export interface ApiKeyOwner {
  client_id: string;
  user_id: number;
  username: string;
  status: CredentialStatus;
  rate_limit_level: RateLimitLevel;
}

/** The credential whose client secret is `key` (looked up by its digest), with its user's name; callers check `status`. */
export function findApiKeyOwner(db: Db, key: string): Promise<ApiKeyOwner | undefined> {
  return db
    .selectFrom('api_credentials as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .where('c.client_secret_digest', '=', apiKeyDigest(key))
    .select(['c.client_id', 'c.user_id', 'u.username', 'c.status', 'c.rate_limit_level'])
    .executeTakeFirst();
}
