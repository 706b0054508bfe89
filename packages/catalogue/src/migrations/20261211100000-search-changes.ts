import { type Kysely, sql } from 'kysely';

/**
 * What a process's posting index needs to stay current (issue 33): the ids of the sounds whose
 * search document changed, with the transaction that changed each last. The changes feed of the
 * API (`sound_changes`) does not serve: it leaves out the counters the sorts and filters read
 * (downloads, ratings), and renames of users and packs, and descriptor writes (the `bpm` filter),
 * none of which change what the feed's harvesters see of a sound.
 *
 * One row per sound, written by every insert, update or delete of its `sound_search` row (edits,
 * tags, counters, renames, moderation and processing visibility, deletion) and by every write of
 * its `bpm`. A reader remembers the snapshot of its last read and next reads the rows whose
 * transaction that snapshot did not see (`pg_visible_in_snapshot`): every change committed since,
 * whatever order transactions took their ids in, with no lock and no number taken at commit. A
 * transaction still running at a read is seen by the next one. Rows are replaced, never
 * accumulated: the table holds at most one row per sound that ever changed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE search_changes (
    sound_id integer PRIMARY KEY,
    xid xid8 NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX search_changes_xid_idx ON search_changes (xid)`.execute(db);

  await sql`CREATE FUNCTION search_change_stamp(changed integer) RETURNS void LANGUAGE sql AS $$
      INSERT INTO search_changes (sound_id, xid) VALUES (changed, pg_current_xact_id())
      ON CONFLICT (sound_id) DO UPDATE SET xid = excluded.xid
        WHERE search_changes.xid IS DISTINCT FROM excluded.xid
    $$`.execute(db);

  // search_rebuild() (earshot.search_bulk) re-derives the same documents: nothing to tell.
  await sql`CREATE FUNCTION search_changes_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('earshot.search_bulk', true) = 'on' THEN
        RETURN NULL;
      END IF;
      IF TG_OP = 'DELETE' THEN
        PERFORM search_change_stamp(OLD.id);
      ELSE
        PERFORM search_change_stamp(NEW.id);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER sound_search_changes AFTER INSERT OR UPDATE OR DELETE ON sound_search
    FOR EACH ROW EXECUTE FUNCTION search_changes_trigger()`.execute(db);

  await sql`CREATE FUNCTION search_changes_bpm_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM search_change_stamp(OLD.sound_id);
      END IF;
      IF TG_OP IN ('UPDATE', 'INSERT') THEN
        PERFORM search_change_stamp(NEW.sound_id);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER sound_descriptors_search_changes AFTER INSERT OR DELETE ON sound_descriptors
    FOR EACH ROW EXECUTE FUNCTION search_changes_bpm_trigger()`.execute(db);
  await sql`CREATE TRIGGER sound_descriptors_search_changes_update AFTER UPDATE OF bpm, sound_id ON sound_descriptors
    FOR EACH ROW WHEN (OLD.bpm IS DISTINCT FROM NEW.bpm OR OLD.sound_id <> NEW.sound_id)
    EXECUTE FUNCTION search_changes_bpm_trigger()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS sound_descriptors_search_changes_update ON sound_descriptors`.execute(db);
  await sql`DROP TRIGGER IF EXISTS sound_descriptors_search_changes ON sound_descriptors`.execute(db);
  await sql`DROP TRIGGER IF EXISTS sound_search_changes ON sound_search`.execute(db);
  await sql`DROP FUNCTION IF EXISTS search_changes_bpm_trigger()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS search_changes_trigger()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS search_change_stamp(integer)`.execute(db);
  await sql`DROP TABLE IF EXISTS search_changes`.execute(db);
}
