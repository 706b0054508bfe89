import { randomInt } from 'node:crypto';
import type { Database } from '@earshot/catalogue';
import { type Kysely, sql } from 'kysely';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random string of letters and digits from the CSPRNG. */
export function randomToken(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

export interface NewCredential {
  username: string;
  name: string;
  redirectUri: string;
  description?: string;
}

export interface CreatedCredential {
  client_id: string;
  /** The API key of the token strategy, and the OAuth2 client secret. */
  client_secret: string;
  name: string;
  username: string;
  redirect_uri: string;
  /** True when the user did not exist and was created for the credential. */
  user_created: boolean;
}

/**
 * Issues an API credential for a user (created on the spot when unknown, so a fresh install can
 * be tried at once). Ids are 20 letters and digits and secrets 40, like the original service.
 */
export async function createApiCredential(
  db: Kysely<Database>,
  input: NewCredential,
): Promise<CreatedCredential> {
  return db.transaction().execute(async (trx) => {
    let user = await trx
      .selectFrom('users')
      .where(sql`lower(username)`, '=', input.username.toLowerCase())
      .select(['id', 'username'])
      .executeTakeFirst();
    const userCreated = !user;
    if (!user) {
      user = await trx
        .insertInto('users')
        .values({ username: input.username, password_hash: null, avatar_path: null })
        .returning(['id', 'username'])
        .executeTakeFirstOrThrow();
    }
    const credential = await trx
      .insertInto('api_credentials')
      .values({
        user_id: user.id,
        client_id: randomToken(20),
        client_secret: randomToken(40),
        name: input.name,
        description: input.description ?? '',
        redirect_uri: input.redirectUri,
      })
      .returning(['client_id', 'client_secret', 'name', 'redirect_uri'])
      .executeTakeFirstOrThrow();
    return { ...credential, username: user.username, user_created: userCreated };
  });
}
