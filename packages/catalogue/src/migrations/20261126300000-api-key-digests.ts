import { type Kysely, sql } from 'kysely';

/**
 * API keys (the credentials' client secrets) at rest as SHA-256 digests (hex), as OAuth2 codes and
 * tokens already are: a copy of the database no longer holds a usable key. A key is a random
 * 40-character string, so an unsalted digest is enough and a lookup stays one unique-index probe.
 * The column is renamed so that code still comparing a plain key with it fails to compile instead
 * of silently finding nothing. `client_secret_hint` keeps the key's first 4 characters, enough for
 * a person to tell two keys apart on the credentials page, too few to guess the rest.
 * Existing keys are converted in place (PostgreSQL's built-in sha256): they keep working.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_credentials ADD COLUMN client_secret_hint text NOT NULL DEFAULT ''`.execute(db);
  await sql`UPDATE api_credentials
    SET client_secret_hint = left(client_secret, 4),
        client_secret = encode(sha256(convert_to(client_secret, 'UTF8')), 'hex')`.execute(db);
  await sql`ALTER TABLE api_credentials RENAME COLUMN client_secret TO client_secret_digest`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Digests cannot be turned back into keys: every credential needs a new key after this.
  await sql`ALTER TABLE api_credentials RENAME COLUMN client_secret_digest TO client_secret`.execute(db);
  await sql`ALTER TABLE api_credentials DROP COLUMN client_secret_hint`.execute(db);
}
