import { type Kysely, sql } from 'kysely';

/**
 * A counter that every committed change to what search results or rendered sounds read moves
 * forward, so a reader that caches answers can ask "has anything changed?" with one primary-key
 * read. The embedded database needs it: its processes share one PGlite backend through the host,
 * and a notification (migration `*-catalogue-change-notify`) reaches nobody else, so the API of
 * one process kept serving what it had cached after another process (`earshot moderate …`) wrote.
 * Readers of the PostgreSQL server keep listening for the notifications instead (cheaper per
 * request); the counter is moved there too so both backends keep one schema.
 *
 * Moved once per transaction, at commit (deferred constraint triggers): the counter row is then
 * locked only for the moment of the commit — which notifying transactions already serialise on —
 * so writers never wait on it while holding other rows (no new deadlocks). Rows changed with the
 * triggers off (bulk loads, session_replication_role = replica) move nothing, as they notify
 * nothing.
 */

/** The tables of `*-catalogue-change-notify` (a migration keeps its own copy: it must not change later). */
const TABLES = [
  'sounds',
  'users',
  'packs',
  'tags',
  'sound_tags',
  'sound_remixes',
  'comments',
  'ratings',
  'downloads',
  'sound_similarity_vectors',
  'sound_descriptors',
  'sound_search',
  'search_term_df',
  'search_term_pack',
  'search_tag',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE catalogue_version (
    id smallint PRIMARY KEY CHECK (id = 1),
    version bigint NOT NULL
  )`.execute(db);
  await sql`INSERT INTO catalogue_version (id, version) VALUES (1, 0)`.execute(db);
  // A transaction-local setting remembers that this transaction already counted (it resets at
  // commit or rollback, and with a rolled-back savepoint together with the counter's update).
  await sql`CREATE FUNCTION catalogue_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('earshot.catalogue_version_bumped', true) IS DISTINCT FROM 'on' THEN
        UPDATE catalogue_version SET version = version + 1 WHERE id = 1;
        PERFORM set_config('earshot.catalogue_version_bumped', 'on', true);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  for (const table of TABLES) {
    if (table === 'sounds') {
      // As for the notification: a worker's stage and progress bookkeeping is no change to readers.
      await sql`CREATE CONSTRAINT TRIGGER sounds_changed_count AFTER INSERT OR DELETE ON sounds
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalogue_version_bump()`.execute(db);
      await sql`CREATE CONSTRAINT TRIGGER sounds_changed_count_update AFTER UPDATE ON sounds
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NOT sounds_bookkeeping_only(OLD, NEW))
        EXECUTE FUNCTION catalogue_version_bump()`.execute(db);
    } else {
      await sql`CREATE CONSTRAINT TRIGGER ${sql.id(`${table}_changed_count`)}
        AFTER INSERT OR UPDATE OR DELETE ON ${sql.table(table)}
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalogue_version_bump()`.execute(db);
    }
    // Constraint triggers cannot watch TRUNCATE; a TRUNCATE locks its whole table anyway.
    await sql`CREATE TRIGGER ${sql.id(`${table}_truncated_count`)} AFTER TRUNCATE ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`DROP TRIGGER IF EXISTS ${sql.id(`${table}_truncated_count`)} ON ${sql.table(table)}`.execute(
      db,
    );
    await sql`DROP TRIGGER IF EXISTS ${sql.id(`${table}_changed_count`)} ON ${sql.table(table)}`.execute(db);
  }
  await sql`DROP TRIGGER IF EXISTS sounds_changed_count_update ON sounds`.execute(db);
  await sql`DROP FUNCTION IF EXISTS catalogue_version_bump()`.execute(db);
  await sql`DROP TABLE IF EXISTS catalogue_version`.execute(db);
}
