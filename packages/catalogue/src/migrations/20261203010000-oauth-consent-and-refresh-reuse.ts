import { type Kysely, sql } from 'kysely';

/**
 * Two OAuth2 records the token row alone could not keep (issue 31):
 * - `granted_scope`: the scopes the user has consented to for the application since the pair was
 *   last revoked (the union of its consents). The automatic grant of the authorize step covers only
 *   these; a wider request asks again. Existing pairs start with their token's scope.
 * - `oauth_retired_refresh_tokens`: the digests of refresh tokens already rotated away, by pair, so
 *   a replayed one is recognized and revokes the pair (RFC 6749 §10.4, refresh token reuse). A new
 *   authorization of the pair starts afresh and forgets them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE oauth_tokens ADD COLUMN granted_scope text NOT NULL DEFAULT ''`.execute(db);
  await sql`UPDATE oauth_tokens SET granted_scope = scope`.execute(db);
  await sql`CREATE TABLE oauth_retired_refresh_tokens (
    refresh_token text PRIMARY KEY,
    token_id integer NOT NULL REFERENCES oauth_tokens (id) ON DELETE CASCADE,
    retired_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX oauth_retired_refresh_tokens_token_id ON oauth_retired_refresh_tokens (token_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS oauth_retired_refresh_tokens`.execute(db);
  await sql`ALTER TABLE oauth_tokens DROP COLUMN IF EXISTS granted_scope`.execute(db);
}
