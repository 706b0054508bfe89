import { type Kysely, sql } from 'kysely';

/**
 * Credential changes (created, revoked, level changed) move the catalogue's change version, so the
 * API's cache of API keys forgets a revoked key at once in every process that follows it, as the
 * bearer-token cache does for tokens. Credentials change at human pace.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TRIGGER api_credentials_changed_notify
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_credentials
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed_notify()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS api_credentials_changed_notify ON api_credentials`.execute(db);
}
