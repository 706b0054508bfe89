import { type Db, findUserByName, listCredentials } from '@earshot/catalogue';
import { createApiCredential } from './credentials.ts';

/** The account of the demo: its API key is printed at start, the demo fixtures are its sounds. */
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
export async function ensureDemoAccount(db: Db, base: string): Promise<DemoAccount> {
  const user = await findUserByName(db, DEMO_USERNAME);
  const existing = user && (await listCredentials(db, { userId: user.id })).find((c) => c.name === DEMO_APP);
  if (existing) return { username: DEMO_USERNAME, apiKey: existing.client_secret, created: false };
  const created = await createApiCredential(db, {
    username: DEMO_USERNAME,
    name: DEMO_APP,
    redirectUri: `${base}/home/app_permissions/permission_granted/`,
    level: 'standard', // the demo key is throttled like any newcomer's
  });
  return { username: DEMO_USERNAME, apiKey: created.client_secret, created: true };
}
