import type { Database } from '@earshot/catalogue';
import type { Kysely } from 'kysely';
import type { FindCredentialByKey } from '../auth/token-strategy.ts';

/** Finds an API credential by its key (the client secret) for the token strategy. */
export function credentialByKey(db: Kysely<Database>): FindCredentialByKey {
  return async (key) => {
    const row = await db
      .selectFrom('api_credentials as c')
      .innerJoin('users as u', 'u.id', 'c.user_id')
      .where('c.client_secret', '=', key)
      .select(['c.client_id', 'c.user_id', 'u.username', 'c.status'])
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      clientId: row.client_id,
      userId: row.user_id,
      username: row.username,
      active: row.status === 'approved',
    };
  };
}
