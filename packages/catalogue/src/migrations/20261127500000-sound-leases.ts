import { type Kysely, sql } from 'kysely';

/**
 * One owner per sound's processing across every process on the catalogue (issue 19): the process
 * running a sound's stage holds a lease that it renews while it works. `epoch` grows with each
 * acquisition, so a writer that lost its lease (paused past its expiry) is refused at its final
 * write even if it comes back. Times are the database's clock, the one clock all processes share.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE sound_leases (
    sound_id integer PRIMARY KEY REFERENCES sounds (id) ON DELETE CASCADE,
    owner text NOT NULL,
    epoch integer NOT NULL,
    expires_at timestamptz NOT NULL
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS sound_leases`.execute(db);
}
