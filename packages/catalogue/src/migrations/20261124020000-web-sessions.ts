import { type Kysely, sql } from 'kysely';

/**
 * `web_sessions`: the browser sessions of the web pages (docs/web.md). The row is keyed by the
 * SHA-256 digest of the session id, so a copy of the table cannot be replayed as cookies. A row
 * without a user is a visitor's session that only holds the CSRF token of the sign-in form.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE web_sessions (
    id_digest bytea PRIMARY KEY,
    user_id integer REFERENCES users (id) ON DELETE CASCADE,
    csrf_token text NOT NULL,
    created timestamptz NOT NULL,
    last_seen timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX web_sessions_expires_at_idx ON web_sessions (expires_at)`.execute(db);
  await sql`CREATE INDEX web_sessions_user_id_idx ON web_sessions (user_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS web_sessions`.execute(db);
}
