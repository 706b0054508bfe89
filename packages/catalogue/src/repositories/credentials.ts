import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiCredential, CredentialStatus, RateLimitLevel } from '../schema/database.ts';
import { randomAlphanumeric } from './random-tokens.ts';
import { type Db, inTransaction } from './shared.ts';

export interface NewCredential {
  userId: number;
  name: string;
  redirectUri: string;
  description?: string;
  url?: string;
  status?: CredentialStatus;
  rateLimitLevel?: RateLimitLevel;
  allowPasswordGrant?: boolean;
}

/**
 * The administrator-set rate-limit levels by name, stored as upstream's numbers (the column's check
 * constraint allows exactly these). What each level allows is the API's policy (api/src/framework/rate-limits/).
 */
export const RATE_LIMIT_LEVELS = { suspended: 0, standard: 1, elevated: 2, high: 3, unlimited: 99 } as const;
export type RateLimitLevelName = keyof typeof RATE_LIMIT_LEVELS;

export function isRateLimitLevelName(name: string): name is RateLimitLevelName {
  return Object.hasOwn(RATE_LIMIT_LEVELS, name);
}

export function rateLimitLevelName(level: RateLimitLevel): RateLimitLevelName {
  const entry = Object.entries(RATE_LIMIT_LEVELS).find(([, n]) => n === level);
  return (entry?.[0] as RateLimitLevelName | undefined) ?? 'standard';
}

// Upstream's sizes: a 20-character client id and a 40-character secret, which is also the API key.
export const CLIENT_ID_LENGTH = 20;
export const CLIENT_SECRET_LENGTH = 40;
/** How many of a key's first characters the credentials page shows (migration `*-api-key-digests`). */
const HINT_LENGTH = 4;

/**
 * API keys are stored as SHA-256 digests (migration `*-api-key-digests`): the database never holds
 * a usable key. The plain key exists only in the answer to the call that made it.
 */
export function apiKeyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whether `given` is the credential's client secret (constant time over the digests). */
export function credentialSecretMatches(credential: ApiCredential, given: string): boolean {
  const a = Buffer.from(apiKeyDigest(given), 'hex');
  const b = Buffer.from(credential.client_secret_digest, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A credential as just made (or given a new key): the only time its plain key is known. */
export type IssuedCredential = ApiCredential & { client_secret: string };

function newSecret() {
  const secret = randomAlphanumeric(CLIENT_SECRET_LENGTH);
  return {
    secret,
    columns: { client_secret_digest: apiKeyDigest(secret), client_secret_hint: secret.slice(0, HINT_LENGTH) },
  };
}

export async function createCredential(db: Db, input: NewCredential): Promise<IssuedCredential> {
  const { secret, columns } = newSecret();
  const row = await db
    .insertInto('api_credentials')
    .values({
      user_id: input.userId,
      client_id: randomAlphanumeric(CLIENT_ID_LENGTH),
      ...columns,
      name: input.name,
      redirect_uri: input.redirectUri,
      description: input.description ?? '',
      url: input.url ?? '',
      status: input.status ?? 'approved',
      rate_limit_level: input.rateLimitLevel ?? 1,
      allow_password_grant: input.allowPasswordGrant ?? false,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...row, client_secret: secret };
}

/**
 * Gives one of `userId`'s live credentials a new key (the old one is refused from now on: the
 * api_credentials trigger moves the change version, which empties the API's key cache). Returns
 * undefined when the user owns no such credential or it is revoked.
 */
export async function replaceCredentialSecret(
  db: Db,
  clientId: string,
  userId: number,
): Promise<IssuedCredential | undefined> {
  const { secret, columns } = newSecret();
  const row = await db
    .updateTable('api_credentials')
    .set(columns)
    .where('client_id', '=', clientId)
    .where('user_id', '=', userId)
    .where('status', '<>', 'revoked')
    .returningAll()
    .executeTakeFirst();
  return row && { ...row, client_secret: secret };
}

/** The credential whose API key (client secret) this is, whatever its status: callers check `status`. */
export function findCredentialBySecret(db: Db, secret: string): Promise<ApiCredential | undefined> {
  return db
    .selectFrom('api_credentials')
    .selectAll()
    .where('client_secret_digest', '=', apiKeyDigest(secret))
    .executeTakeFirst();
}

export function findCredentialByClientId(db: Db, clientId: string): Promise<ApiCredential | undefined> {
  return db.selectFrom('api_credentials').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export function listCredentials(db: Db, filter: { userId?: number } = {}): Promise<ApiCredential[]> {
  let query = db.selectFrom('api_credentials').selectAll().orderBy('id');
  if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
  return query.execute();
}

/**
 * How many live (not revoked) credentials `userId` owns, counted under a lock on the user's row that
 * lasts until the transaction `trx` ends: two requests for a credential at once are counted one
 * after the other, so a cap on the count holds.
 */
export async function countLiveCredentialsLocked(trx: Db, userId: number): Promise<number> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
  const row = await trx
    .selectFrom('api_credentials')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('status', '<>', 'revoked')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setCredentialStatus(db: Db, id: number, status: CredentialStatus): Promise<void> {
  await db.updateTable('api_credentials').set({ status }).where('id', '=', id).execute();
}

export async function setCredentialRateLimitLevel(db: Db, id: number, level: RateLimitLevel): Promise<void> {
  await db.updateTable('api_credentials').set({ rate_limit_level: level }).where('id', '=', id).execute();
}

/**
 * Revokes a credential for good: its API key is refused from now on, and every OAuth2 token and
 * unused code issued to it stops working (a revoked credential cannot get new ones either: the
 * OAuth2 model only serves approved clients). Returns false when `userId` owns no such credential.
 */
export function revokeCredential(
  db: Db,
  clientId: string,
  userId: number,
  now: Date = new Date(),
): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const row = await trx
      .updateTable('api_credentials')
      .set({ status: 'revoked' })
      .where('client_id', '=', clientId)
      .where('user_id', '=', userId)
      .returning('id')
      .executeTakeFirst();
    if (!row) return false;
    await trx
      .updateTable('oauth_tokens')
      .set({ revoked_at: now })
      .where('credential_id', '=', row.id)
      .where('revoked_at', 'is', null)
      .execute();
    await trx
      .deleteFrom('oauth_grants')
      .where('credential_id', '=', row.id)
      .where('used_at', 'is', null)
      .execute();
    return true;
  });
}
