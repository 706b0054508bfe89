import { type Kysely, sql } from 'kysely';

/**
 * A counter that every committed change to what search results or rendered sounds read moves
 * forward, so a reader that caches answers can ask "has anything changed?" with one primary-key
 * read. The embedded database needs it: its processes share one PGlite backend through the host,
 * so a notification (migration `*-catalogue-change-notify`) reaches none of them, and the API of
 * one process kept serving what it had cached after another process (`earshot moderate …`) wrote.
 *
 * The counter is moved by the triggers that notify (the same tables, statements and the same
 * exception for a worker's progress bookkeeping), once per transaction. Only on the embedded
 * database: there one transaction runs at a time across all processes, so the counter's row lock
 * never makes anyone wait. On the PostgreSQL server it would serialize concurrent writers from
 * their first statement to their commit (and could deadlock two of them); readers there listen for
 * the notifications instead, which cost nothing per request. The table exists on both (one schema)
 * but stays at 0 on the server. Rows changed with the triggers off (bulk loads,
 * session_replication_role = replica) move nothing, as they notify nothing.
 */

const NOTIFY_ONLY = sql`CREATE OR REPLACE FUNCTION catalogue_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('earshot_catalogue_changed', '');
      RETURN NULL;
    END $$`;

// A transaction-local setting remembers that this transaction already counted: it resets at commit
// or rollback (and with a rolled-back savepoint, together with the counter's update).
const NOTIFY_AND_COUNT = sql`CREATE OR REPLACE FUNCTION catalogue_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('earshot_catalogue_changed', '');
      IF current_setting('earshot.catalogue_version_moved', true) IS DISTINCT FROM 'on' THEN
        UPDATE catalogue_version SET version = version + 1 WHERE id = 1;
        PERFORM set_config('earshot.catalogue_version_moved', 'on', true);
      END IF;
      RETURN NULL;
    END $$`;

/** PGlite names itself in `version()` ("PostgreSQL 18.6 (PGlite 0.5.14) on wasm32-…"). */
async function isEmbedded(db: Kysely<unknown>): Promise<boolean> {
  const { rows } = await sql<{ version: string }>`select version() as version`.execute(db);
  return rows[0].version.includes('PGlite');
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE catalogue_version (
    id smallint PRIMARY KEY CHECK (id = 1),
    version bigint NOT NULL
  )`.execute(db);
  await sql`INSERT INTO catalogue_version (id, version) VALUES (1, 0)`.execute(db);
  if (await isEmbedded(db)) await NOTIFY_AND_COUNT.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await NOTIFY_ONLY.execute(db);
  await sql`DROP TABLE IF EXISTS catalogue_version`.execute(db);
}
