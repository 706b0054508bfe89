import { type Kysely, sql } from 'kysely';

/**
 * One runner at a time of a catalogue-wide task (the bulk export, issue 36) across every process and
 * host on the catalogue: the runner holds a named lease it renews while it works; a crashed runner's
 * lease expires. `epoch` grows with each acquisition, so a runner that lost its lease cannot tell
 * its successor's renewals from its own. Times are the database's clock.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE task_leases (
    name text PRIMARY KEY,
    owner text NOT NULL,
    epoch integer NOT NULL,
    expires_at timestamptz NOT NULL
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS task_leases`.execute(db);
}
