import { sql } from 'kysely';
import type { OauthGrant, OauthToken } from '../schema/database.ts';
import { randomAlphanumeric } from './random-tokens.ts';
import { type Db, inTransaction } from './shared.ts';

/** The contract's lifetimes: codes 10 minutes (single use), access tokens 24 hours. */
export const AUTHORIZATION_CODE_TTL_MS = 10 * 60 * 1000;
export const ACCESS_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
const CODE_LENGTH = 30;
const TOKEN_LENGTH = 30;

export interface NewGrant {
  credentialId: number;
  userId: number;
  redirectUri: string;
  scope: string;
  codeChallenge?: string;
  codeChallengeMethod?: 'plain' | 'S256';
  /** For tests and clocks: when the code was issued (default now). */
  now?: Date;
}

export function createGrant(db: Db, input: NewGrant): Promise<OauthGrant> {
  const now = input.now ?? new Date();
  return db
    .insertInto('oauth_grants')
    .values({
      code: randomAlphanumeric(CODE_LENGTH),
      credential_id: input.credentialId,
      user_id: input.userId,
      redirect_uri: input.redirectUri,
      scope: input.scope,
      code_challenge: input.codeChallenge ?? null,
      code_challenge_method: input.codeChallenge ? (input.codeChallengeMethod ?? 'plain') : null,
      created: now,
      expires_at: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Marks a code used and returns its grant — once. An unknown, expired, already used or other
 * client's code gives undefined (the caller's "invalid_grant"); the single UPDATE makes two
 * simultaneous exchanges of one code unable to both succeed.
 */
export function consumeGrant(
  db: Db,
  code: string,
  credentialId: number,
  now: Date = new Date(),
): Promise<OauthGrant | undefined> {
  return db
    .updateTable('oauth_grants')
    .set({ used_at: now })
    .where('code', '=', code)
    .where('credential_id', '=', credentialId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Issues the application/user pair's access and refresh tokens, replacing any earlier pair (one per pair). */
export function issueTokens(
  db: Db,
  input: { credentialId: number; userId: number; scope: string; now?: Date },
): Promise<OauthToken> {
  const now = input.now ?? new Date();
  const values = {
    access_token: randomAlphanumeric(TOKEN_LENGTH),
    refresh_token: randomAlphanumeric(TOKEN_LENGTH),
    scope: input.scope,
    created: now,
    expires_at: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS),
    revoked_at: null,
  };
  return db
    .insertInto('oauth_tokens')
    .values({ credential_id: input.credentialId, user_id: input.userId, ...values })
    .onConflict((oc) => oc.columns(['credential_id', 'user_id']).doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export type AccessTokenCheck =
  | { status: 'valid'; token: OauthToken }
  | { status: 'expired'; token: OauthToken }
  | { status: 'revoked'; token: OauthToken }
  | { status: 'unknown' };

/** What a bearer token is worth now: the API answers 401 "Expired token" / "Invalid token" from this. */
export async function checkAccessToken(
  db: Db,
  accessToken: string,
  now: Date = new Date(),
): Promise<AccessTokenCheck> {
  const token = await db
    .selectFrom('oauth_tokens')
    .selectAll()
    .where('access_token', '=', accessToken)
    .executeTakeFirst();
  if (!token) return { status: 'unknown' };
  if (token.revoked_at) return { status: 'revoked', token };
  if (token.expires_at.getTime() <= now.getTime()) return { status: 'expired', token };
  return { status: 'valid', token };
}

/**
 * Exchanges a refresh token for a new pair (both rotate). Works on expired access tokens, not on
 * revoked ones; a refresh token already used is unknown, so a replay gives undefined.
 */
export function refreshTokens(
  db: Db,
  refreshToken: string,
  credentialId: number,
  now: Date = new Date(),
): Promise<OauthToken | undefined> {
  return inTransaction(db, async (trx) => {
    const current = await trx
      .selectFrom('oauth_tokens')
      .selectAll()
      .where('refresh_token', '=', refreshToken)
      .where('credential_id', '=', credentialId)
      .where('revoked_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!current) return undefined;
    return issueTokens(trx, { credentialId, userId: current.user_id, scope: current.scope, now });
  });
}

/** Revokes the user's tokens for an application (access and refresh alike) and its unused codes. */
export async function revokeAccess(
  db: Db,
  credentialId: number,
  userId: number,
  now: Date = new Date(),
): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx
      .updateTable('oauth_tokens')
      .set({ revoked_at: now })
      .where('credential_id', '=', credentialId)
      .where('user_id', '=', userId)
      .execute();
    await trx
      .deleteFrom('oauth_grants')
      .where('credential_id', '=', credentialId)
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .execute();
  });
}

/** True when the pair holds a non-expired, non-revoked token: the authorize step may then skip the prompt. */
export async function hasLiveToken(
  db: Db,
  credentialId: number,
  userId: number,
  now: Date = new Date(),
): Promise<boolean> {
  const row = await db
    .selectFrom('oauth_tokens')
    .select(sql<number>`1`.as('one'))
    .where('credential_id', '=', credentialId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}
