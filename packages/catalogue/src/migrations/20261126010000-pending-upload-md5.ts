import { type Kysely, sql } from 'kysely';

/**
 * The md5 of a file awaiting its description, taken while it streamed in: describing it refuses a
 * file the catalogue already holds without reading it again. Files pending before this migration
 * have none (their sound's probe fills the sound's md5 as before).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE pending_uploads ADD COLUMN md5 text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE pending_uploads DROP COLUMN IF EXISTS md5`.execute(db);
}
