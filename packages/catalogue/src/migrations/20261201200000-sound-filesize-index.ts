import { type Kysely, sql } from 'kysely';

/**
 * The duplicate rule (a file the catalogue holds is refused) is checked by size first: an upload is
 * hashed before it is answered only when an original of the same byte size exists, so the sizes are
 * looked up on every upload. Sounds from before this migration whose size is unknown (queued, not
 * yet probed) get it filled by the first upload that meets them (same-size-originals.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX sounds_filesize_idx ON sounds (filesize)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sounds_filesize_idx`.execute(db);
}
