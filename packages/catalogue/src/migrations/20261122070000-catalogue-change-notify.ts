import { type Kysely, sql } from 'kysely';

/**
 * Every committed change to a table that search results or rendered sounds read sends one
 * notification on `earshot_catalogue_changed` (PostgreSQL folds repeats within a transaction into
 * one), so a reader that caches answers (the API's search-result cache) knows when to drop them
 * whichever process wrote. Statement-level: one call per statement, not per row. Bulk loads run
 * with triggers off (session_replication_role = replica) and send nothing; readers restart after
 * those.
 */
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
  await sql`CREATE FUNCTION catalogue_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('earshot_catalogue_changed', '');
      RETURN NULL;
    END $$`.execute(db);
  for (const table of TABLES) {
    await sql`CREATE TRIGGER ${sql.id(`${table}_changed_notify`)}
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed_notify()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`DROP TRIGGER IF EXISTS ${sql.id(`${table}_changed_notify`)} ON ${sql.table(table)}`.execute(db);
  }
  await sql`DROP FUNCTION IF EXISTS catalogue_changed_notify()`.execute(db);
}
