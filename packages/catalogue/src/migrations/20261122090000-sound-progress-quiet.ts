import { type Kysely, sql } from 'kysely';

/**
 * A worker reports a sound's stage and progress several times per stage. Those columns are read by
 * nobody but the pipeline's own status queries, yet every such UPDATE rebuilt the sound's search
 * document (and its phrase pairs and counts) and told every API process to drop its caches. From
 * here an UPDATE that changes only that bookkeeping does neither; any other change still does both.
 */
const BOOKKEEPING = ['processing_stage', 'processing_progress', 'processing_updated'];

export async function up(db: Kysely<unknown>): Promise<void> {
  const columns = sql.raw(`ARRAY[${BOOKKEEPING.map((c) => `'${c}'`).join(', ')}]`);
  // Compared as jsonb so that a column added later counts as a real change without editing this list.
  await sql`CREATE FUNCTION sounds_bookkeeping_only(old_row sounds, new_row sounds) RETURNS boolean
    LANGUAGE sql IMMUTABLE AS $$
      SELECT (to_jsonb(old_row) - ${columns}::text[]) = (to_jsonb(new_row) - ${columns}::text[])
    $$`.execute(db);

  await sql`DROP TRIGGER sounds_search_sync ON sounds`.execute(db);
  await sql`CREATE TRIGGER sounds_search_sync AFTER INSERT ON sounds
    FOR EACH ROW EXECUTE FUNCTION search_sounds_trigger()`.execute(db);
  await sql`CREATE TRIGGER sounds_search_sync_update AFTER UPDATE ON sounds
    FOR EACH ROW WHEN (NOT sounds_bookkeeping_only(OLD, NEW))
    EXECUTE FUNCTION search_sounds_trigger()`.execute(db);

  // Row level for the WHEN test; PostgreSQL still folds the repeats of one transaction into one notification.
  await sql`DROP TRIGGER sounds_changed_notify ON sounds`.execute(db);
  await sql`CREATE TRIGGER sounds_changed_notify AFTER INSERT OR DELETE OR TRUNCATE ON sounds
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed_notify()`.execute(db);
  await sql`CREATE TRIGGER sounds_changed_notify_update AFTER UPDATE ON sounds
    FOR EACH ROW WHEN (NOT sounds_bookkeeping_only(OLD, NEW))
    EXECUTE FUNCTION catalogue_changed_notify()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER sounds_changed_notify_update ON sounds`.execute(db);
  await sql`DROP TRIGGER sounds_changed_notify ON sounds`.execute(db);
  await sql`CREATE TRIGGER sounds_changed_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sounds
    FOR EACH STATEMENT EXECUTE FUNCTION catalogue_changed_notify()`.execute(db);
  await sql`DROP TRIGGER sounds_search_sync_update ON sounds`.execute(db);
  await sql`DROP TRIGGER sounds_search_sync ON sounds`.execute(db);
  await sql`CREATE TRIGGER sounds_search_sync AFTER INSERT OR UPDATE ON sounds
    FOR EACH ROW EXECUTE FUNCTION search_sounds_trigger()`.execute(db);
  await sql`DROP FUNCTION sounds_bookkeeping_only(sounds, sounds)`.execute(db);
}
