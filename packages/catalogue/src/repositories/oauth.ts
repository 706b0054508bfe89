import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { OauthGrant, OauthToken, RateLimitLevel } from '../schema/database.ts';
import { randomAlphanumeric } from './random-tokens.ts';
import { type Db, inTransaction } from './shared.ts';

/** The contract's lifetimes: codes 10 minutes (single use), access tokens 24 hours. */
export const AUTHORIZATION_CODE_TTL_MS = 10 * 60 * 1000;
export const ACCESS_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
const CODE_LENGTH = 30;
const TOKEN_LENGTH = 30;

/**
 * Codes and tokens are stored as SHA-256 digests (migration `*-oauth-digests-and-changes`): the
 * database never holds a usable secret. Callers pass and receive the plain values.
 */
export function oauthSecretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export interface NewGrant {
  credentialId: number;
  userId: number;
  redirectUri: string;
  scope: string;
  /** The code to store (e.g. the OAuth2 library's); default a fresh random one. */
  code?: string;
  codeChallenge?: string;
  codeChallengeMethod?: 'plain' | 'S256';
  /** For tests and clocks: when the code was issued (default now). */
  now?: Date;
}

/** Stores a code; the returned row carries the plain code in `code` (the table holds its digest). */
export async function createGrant(db: Db, input: NewGrant): Promise<OauthGrant> {
  const now = input.now ?? new Date();
  const code = input.code ?? randomAlphanumeric(CODE_LENGTH);
  const row = await db
    .insertInto('oauth_grants')
    .values({
      code: oauthSecretDigest(code),
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
  return { ...row, code };
}

/** An unused, unexpired code with its application's client id (the OAuth2 library checks the rest). */
export async function findGrant(
  db: Db,
  code: string,
  now: Date = new Date(),
): Promise<(OauthGrant & { client_id: string }) | undefined> {
  const row = await db
    .selectFrom('oauth_grants as g')
    .innerJoin('api_credentials as c', 'c.id', 'g.credential_id')
    .selectAll('g')
    .select('c.client_id')
    .where('g.code', '=', oauthSecretDigest(code))
    .where('g.used_at', 'is', null)
    .where('g.expires_at', '>', now)
    .executeTakeFirst();
  return row ? { ...row, code } : undefined;
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
    .where('code', '=', oauthSecretDigest(code))
    .where('credential_id', '=', credentialId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

export interface NewTokens {
  credentialId: number;
  userId: number;
  scope: string;
  /** The tokens to store (e.g. the OAuth2 library's); default fresh random ones. */
  accessToken?: string;
  refreshToken?: string;
  now?: Date;
}

/**
 * Stores the application/user pair's access and refresh tokens from a code exchange, replacing any
 * earlier pair (one per pair). The consented scopes grow by the new token's (a revoked pair starts
 * again from it), and the refresh tokens the old pair retired are forgotten: this is a new grant.
 * The returned row carries the plain tokens.
 */
export async function issueTokens(db: Db, input: NewTokens): Promise<OauthToken> {
  const now = input.now ?? new Date();
  const accessToken = input.accessToken ?? randomAlphanumeric(TOKEN_LENGTH);
  const refreshToken = input.refreshToken ?? randomAlphanumeric(TOKEN_LENGTH);
  const values = {
    access_token: oauthSecretDigest(accessToken),
    refresh_token: oauthSecretDigest(refreshToken),
    scope: input.scope,
    created: now,
    expires_at: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS),
  };
  const row = await inTransaction(db, async (trx) => {
    const stored = await trx
      .insertInto('oauth_tokens')
      .values({
        credential_id: input.credentialId,
        user_id: input.userId,
        ...values,
        granted_scope: input.scope,
      })
      .onConflict((oc) =>
        oc.columns(['credential_id', 'user_id']).doUpdateSet({
          ...values,
          revoked_at: null,
          granted_scope: sql<string>`CASE WHEN oauth_tokens.revoked_at IS NULL
            THEN ${scopeUnion(sql.ref('oauth_tokens.granted_scope'), sql.ref('excluded.granted_scope'))}
            ELSE excluded.granted_scope END`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx.deleteFrom('oauth_retired_refresh_tokens').where('token_id', '=', stored.id).execute();
    return stored;
  });
  return { ...row, access_token: accessToken, refresh_token: refreshToken };
}

/** The space-separated union of two space-separated scope lists, each scope once, in order. */
function scopeUnion(a: ReturnType<typeof sql.ref>, b: ReturnType<typeof sql.ref>) {
  return sql<string>`array_to_string(ARRAY(
    SELECT DISTINCT s FROM unnest(string_to_array(${a}, ' ') || string_to_array(${b}, ' ')) AS s
    WHERE s <> '' ORDER BY s), ' ')`;
}

/**
 * A token row with what a bearer principal needs: the application's client id and rate-limit
 * level (its credential's, as for the API key), and the user's name.
 */
export type BearerToken = OauthToken & {
  client_id: string;
  rate_limit_level: RateLimitLevel;
  username: string;
};

export type AccessTokenCheck =
  | { status: 'valid'; token: BearerToken }
  | { status: 'expired'; token: BearerToken }
  | { status: 'revoked'; token: BearerToken }
  | { status: 'unknown' };

/** What a bearer token is worth now: the API answers 401 "Expired token" / "Invalid token" from this. */
export async function checkAccessToken(
  db: Db,
  accessToken: string,
  now: Date = new Date(),
): Promise<AccessTokenCheck> {
  const token = await db
    .selectFrom('oauth_tokens as t')
    .innerJoin('api_credentials as c', 'c.id', 't.credential_id')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .selectAll('t')
    .select(['c.client_id', 'c.rate_limit_level', 'c.status as credential_status', 'u.username'])
    .where('t.access_token', '=', oauthSecretDigest(accessToken))
    .executeTakeFirst();
  if (!token) return { status: 'unknown' };
  // A revoked or suspended application's tokens are refused even if one escaped its revocation.
  if (token.revoked_at || token.credential_status !== 'approved') return { status: 'revoked', token };
  if (token.expires_at.getTime() <= now.getTime()) return { status: 'expired', token };
  return { status: 'valid', token };
}

/** The unrevoked pair a refresh token belongs to (expired access tokens may be refreshed). */
export async function findRefreshToken(
  db: Db,
  refreshToken: string,
): Promise<(OauthToken & { client_id: string }) | undefined> {
  return db
    .selectFrom('oauth_tokens as t')
    .innerJoin('api_credentials as c', 'c.id', 't.credential_id')
    .selectAll('t')
    .select('c.client_id')
    .where('t.refresh_token', '=', oauthSecretDigest(refreshToken))
    .where('t.revoked_at', 'is', null)
    .executeTakeFirst();
}

export interface RefreshRotation {
  /** The refresh token presented. */
  refreshToken: string;
  credentialId: number;
  /** The new pair's scope (the old one's or, narrowed, what the refresh asked for). */
  scope: string;
  /** The new tokens to store (e.g. the OAuth2 library's); default fresh random ones. */
  accessToken?: string;
  newRefreshToken?: string;
  now?: Date;
}

export type RefreshOutcome =
  | { status: 'rotated'; token: OauthToken }
  /** A refresh token already rotated away was presented again: the pair is revoked now. */
  | { status: 'reused' }
  /** Unknown, revoked, or another application's. */
  | { status: 'unknown' };

/**
 * Exchanges a refresh token for a new pair, both tokens rotating, in one statement: of two
 * refreshes with one token only one rotates. The presented token is remembered as retired; a
 * retired token presented again (a replay: someone else holds a copy) revokes the pair, as RFC 6749
 * §10.4 and the OAuth 2.0 Security BCP ask. Works on expired access tokens, not on revoked ones.
 */
export function rotateRefreshToken(db: Db, input: RefreshRotation): Promise<RefreshOutcome> {
  const now = input.now ?? new Date();
  const accessToken = input.accessToken ?? randomAlphanumeric(TOKEN_LENGTH);
  const refreshToken = input.newRefreshToken ?? randomAlphanumeric(TOKEN_LENGTH);
  return inTransaction(db, async (trx) => {
    const row = await trx
      .updateTable('oauth_tokens')
      .set({
        access_token: oauthSecretDigest(accessToken),
        refresh_token: oauthSecretDigest(refreshToken),
        scope: input.scope,
        created: now,
        expires_at: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS),
      })
      .where('refresh_token', '=', oauthSecretDigest(input.refreshToken))
      .where('credential_id', '=', input.credentialId)
      .where('revoked_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (!row) {
      const reused = await revokeOnRefreshReuse(trx, input.refreshToken, input.credentialId, now);
      return { status: reused ? 'reused' : 'unknown' };
    }
    await trx
      .insertInto('oauth_retired_refresh_tokens')
      .values({ refresh_token: oauthSecretDigest(input.refreshToken), token_id: row.id, retired_at: now })
      .execute();
    return { status: 'rotated', token: { ...row, access_token: accessToken, refresh_token: refreshToken } };
  });
}

/**
 * When `refreshToken` is one the application's pair already rotated away, revokes the pair (its
 * current access and refresh tokens) and answers true; any other token changes nothing.
 */
export async function revokeOnRefreshReuse(
  db: Db,
  refreshToken: string,
  credentialId: number,
  now: Date = new Date(),
): Promise<boolean> {
  const retired = await db
    .selectFrom('oauth_retired_refresh_tokens as r')
    .innerJoin('oauth_tokens as t', 't.id', 'r.token_id')
    .select('t.id')
    .where('r.refresh_token', '=', oauthSecretDigest(refreshToken))
    .where('t.credential_id', '=', credentialId)
    .executeTakeFirst();
  if (!retired) return false;
  await db
    .updateTable('oauth_tokens')
    .set({ revoked_at: now })
    .where('id', '=', retired.id)
    .where('revoked_at', 'is', null)
    .execute();
  return true;
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
      .where('revoked_at', 'is', null)
      .execute();
    await trx
      .deleteFrom('oauth_grants')
      .where('credential_id', '=', credentialId)
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .execute();
  });
}

/** True when the pair holds a non-expired, non-revoked token. */
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

/**
 * The scopes the user has consented to for the application while the pair holds an active or
 * expired (not revoked) token, the contract's condition for granting without asking; undefined
 * when it holds none. A request for more than these must be asked again.
 */
export async function standingGrantedScope(
  db: Db,
  credentialId: number,
  userId: number,
): Promise<string[] | undefined> {
  const row = await db
    .selectFrom('oauth_tokens')
    .select('granted_scope')
    .where('credential_id', '=', credentialId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row ? row.granted_scope.split(' ').filter(Boolean) : undefined;
}

export interface AuthorizedApplication {
  clientId: string;
  name: string;
  description: string;
  url: string;
  scope: string;
  /** When the current token was issued. */
  authorizedAt: Date;
  expiresAt: Date;
}

/** The applications holding an unrevoked token for the user (the settings page's list), newest first. */
export async function listAuthorizedApplications(db: Db, userId: number): Promise<AuthorizedApplication[]> {
  const rows = await db
    .selectFrom('oauth_tokens as t')
    .innerJoin('api_credentials as c', 'c.id', 't.credential_id')
    .select(['c.client_id', 'c.name', 'c.description', 'c.url', 't.scope', 't.created', 't.expires_at'])
    .where('t.user_id', '=', userId)
    .where('t.revoked_at', 'is', null)
    .orderBy('t.created', 'desc')
    .execute();
  return rows.map((r) => ({
    clientId: r.client_id,
    name: r.name,
    description: r.description,
    url: r.url,
    scope: r.scope,
    authorizedAt: r.created,
    expiresAt: r.expires_at,
  }));
}
