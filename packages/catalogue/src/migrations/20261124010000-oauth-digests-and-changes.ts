import { type Kysely, sql } from 'kysely';

/**
 * OAuth2 secrets at rest as SHA-256 digests (hex): authorization codes, access and refresh tokens
 * are random 30+ character strings, so an unsalted digest is enough, and a lookup stays one
 * unique-index probe. Rows already stored are converted in place (PostgreSQL's built-in sha256).
 *
 * Token changes (issue, replace, refresh, revoke) also move the catalogue's change version, so the
 * API's cache of valid bearer tokens is emptied at once in every process that follows it. Tokens
 * change at human pace (one issue per sign-in or daily refresh), far less often than downloads,
 * which already move it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const digest = (column: string) => sql.raw(`encode(sha256(convert_to(${column}, 'UTF8')), 'hex')`);
  await sql`UPDATE oauth_grants SET code = ${digest('code')}`.execute(db);
  await sql`UPDATE oauth_tokens SET access_token = ${digest('access_token')}, refresh_token = ${digest('refresh_token')}`.execute(
    db,
  );
  await sql`CREATE TRIGGER oauth_tokens_changed_notify
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON oauth_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed_notify()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS oauth_tokens_changed_notify ON oauth_tokens`.execute(db);
  // Digests cannot be turned back into tokens: the issued ones stop working.
  await sql`DELETE FROM oauth_tokens`.execute(db);
  await sql`DELETE FROM oauth_grants`.execute(db);
}
