import { type Db, findUserByName, listCredentials } from '@earshot/catalogue';
import { createApiCredential, maskedKey } from './credentials.ts';

/** The account of the demo: its API key is printed at start, the demo fixtures are its sounds. */
export const DEMO_USERNAME = 'demo';
const DEMO_APP = 'earshot demo';

export interface DemoAccount {
  username: string;
  clientId: string;
  /**
   * The full API key, known only on the start that created it (only its digest is stored): later
   * starts have `maskedKey` alone.
   */
  apiKey?: string;
  maskedKey: string;
  /** True when this call created it (the first start on this data folder). */
  created: boolean;
}

/**
 * Makes sure the data folder has a demo user with one API credential, so a newcomer can try the
 * API at once; only when the demo import is on (DEMO_IMPORT): a deployment that does not import the
 * demo sounds gets no demo account either, and this returns undefined. Idempotent: later starts
 * find the same credential (and can show only its masked key).
 */
export async function ensureDemoAccount(
  db: Db,
  base: string,
  config: { DEMO_IMPORT: boolean },
): Promise<DemoAccount | undefined> {
  if (!config.DEMO_IMPORT) return undefined;
  const user = await findUserByName(db, DEMO_USERNAME);
  const existing = user && (await listCredentials(db, { userId: user.id })).find((c) => c.name === DEMO_APP);
  if (existing) {
    return {
      username: DEMO_USERNAME,
      clientId: existing.client_id,
      maskedKey: maskedKey(existing.client_secret_hint),
      created: false,
    };
  }
  const created = await createApiCredential(db, {
    username: DEMO_USERNAME,
    name: DEMO_APP,
    redirectUri: `${base}/home/app_permissions/permission_granted/`,
    level: 'standard', // the demo key is throttled like any newcomer's
  });
  return {
    username: DEMO_USERNAME,
    clientId: created.client_id,
    apiKey: created.client_secret,
    maskedKey: maskedKey(created.client_secret.slice(0, 4)),
    created: true,
  };
}
