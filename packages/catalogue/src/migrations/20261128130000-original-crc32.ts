import { type Kysely, sql } from 'kysely';

/**
 * The CRC-32 of a sound's original file (and of a file pending its description), taken once while
 * the bytes stream in (upload) or are hashed for the md5 (the pipeline's probe): a pack's zip then
 * stores each file with its CRC in the header, reading it only to send it. Sounds from before this
 * migration have none; the zip computes theirs on the way, and their next probe fills it in.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sounds ADD COLUMN crc32 bigint CHECK (crc32 BETWEEN 0 AND 4294967295)`.execute(db);
  await sql`ALTER TABLE pending_uploads ADD COLUMN crc32 bigint CHECK (crc32 BETWEEN 0 AND 4294967295)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE pending_uploads DROP COLUMN IF EXISTS crc32`.execute(db);
  await sql`ALTER TABLE sounds DROP COLUMN IF EXISTS crc32`.execute(db);
}
