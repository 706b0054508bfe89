import { createApiCredential } from '@earshot/api';
import type { Database } from '@earshot/catalogue';
import type { Kysely } from 'kysely';

export const DEMO_USERNAME = 'demo';
const DEMO_APP = 'earshot demo';

export interface DemoAccount {
  username: string;
  apiKey: string;
  /** True when this call created it (the first start on this data folder). */
  created: boolean;
}

/**
 * Makes sure the data folder has a demo user with one API credential, so a newcomer can try the
 * API at once. Idempotent: later starts find and return the same key.
 */
export async function ensureDemoAccount(db: Kysely<Database>, base: string): Promise<DemoAccount> {
  const existing = await db
    .selectFrom('api_credentials')
    .innerJoin('users', 'users.id', 'api_credentials.user_id')
    .where('users.username', '=', DEMO_USERNAME)
    .where('api_credentials.name', '=', DEMO_APP)
    .select(['api_credentials.client_secret'])
    .orderBy('api_credentials.id')
    .executeTakeFirst();
  if (existing) return { username: DEMO_USERNAME, apiKey: existing.client_secret, created: false };
  const created = await createApiCredential(db, {
    username: DEMO_USERNAME,
    name: DEMO_APP,
    redirectUri: `${base}/home/app_permissions/permission_granted/`,
  });
  return { username: DEMO_USERNAME, apiKey: created.client_secret, created: true };
}
