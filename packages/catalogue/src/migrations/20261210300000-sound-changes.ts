import { type Kysely, sql } from 'kysely';

/**
 * The changes feed (`/apiv2/changes/`): one row per sound that is or was public, numbered by the
 * transaction that last changed what the public sees of it (created, edited, approved, removed).
 * A deleted sound keeps its row as a tombstone.
 *
 * The number is taken at commit, not when the row is written. A number taken when written (a
 * sequence) can commit out of order: a reader that has moved past 11 never sees 10 committed a
 * moment later. Here the row is written without a number; a deferred trigger numbers it as its
 * transaction commits, from a clock row it locks until the commit ends, so the numbers become
 * visible in their order and a cursor (the last number and sound id read) never passes a change
 * that is still to commit. The lock is held only through a commit, and only by transactions that
 * changed a public sound; one number per transaction. On the embedded database one transaction runs
 * at a time anyway. (The oldest running transaction's id, `pg_snapshot_xmin`, would also be safe,
 * but any long transaction in any database of the server, such as a search rebuild, would stall the
 * feed for its whole length.)
 *
 * Counters (downloads, ratings, comments) and the pipeline's bookkeeping are not changes: they
 * would renumber a popular sound on every download. Bulk loads with triggers off number nothing;
 * `sound_changes_rebuild()` numbers every public sound not numbered yet afterwards.
 */
const NOT_CHANGES = [
  'num_downloads',
  'avg_rating',
  'num_ratings',
  'num_comments',
  'processing_stage',
  'processing_progress',
  'processing_updated',
  'processing_attempts',
  'processing_error',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  const ignored = sql.raw(`ARRAY[${NOT_CHANGES.map((c) => `'${c}'`).join(', ')}]::text[]`);
  await sql`CREATE TABLE sound_changes (
    sound_id integer PRIMARY KEY,
    seq bigint,
    kind text NOT NULL CHECK (kind IN ('created', 'edited', 'approved', 'removed')),
    changed_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX sound_changes_order_idx ON sound_changes (seq, sound_id)`.execute(db);

  await sql`CREATE TABLE sound_changes_clock (
    id smallint PRIMARY KEY CHECK (id = 1),
    seq bigint NOT NULL
  )`.execute(db);
  await sql`INSERT INTO sound_changes_clock (id, seq) VALUES (1, 0)`.execute(db);

  // Written unnumbered; numbered at commit (below).
  await sql`CREATE FUNCTION sound_change_stamp(stamped_id integer, stamped_kind text) RETURNS void
    LANGUAGE sql AS $$
      INSERT INTO sound_changes (sound_id, seq, kind, changed_at)
      VALUES (stamped_id, NULL, stamped_kind, now())
      ON CONFLICT (sound_id) DO UPDATE
        SET seq = NULL, kind = excluded.kind, changed_at = excluded.changed_at
    $$`.execute(db);

  // The transaction's number, once: a transaction-local setting remembers it (reset at commit or
  // rollback, and with a rolled-back savepoint together with the clock's update).
  await sql`CREATE FUNCTION sound_changes_number() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      n bigint := nullif(current_setting('earshot.sound_changes_seq', true), '')::bigint;
    BEGIN
      IF n IS NULL THEN
        UPDATE sound_changes_clock SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO n;
        PERFORM set_config('earshot.sound_changes_seq', n::text, true);
      END IF;
      UPDATE sound_changes SET seq = n WHERE sound_id = NEW.sound_id AND seq IS NULL;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE CONSTRAINT TRIGGER sound_changes_numbered AFTER INSERT OR UPDATE ON sound_changes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.seq IS NULL)
    EXECUTE FUNCTION sound_changes_number()`.execute(db);

  // Public: approved by moderation and processed (the catalogue's PUBLIC_SOUND).
  await sql`CREATE FUNCTION sound_changes_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      was_public boolean := TG_OP <> 'INSERT' AND OLD.moderation_state = 'ok' AND OLD.processing_state = 'Processed';
      is_public boolean := TG_OP <> 'DELETE' AND NEW.moderation_state = 'ok' AND NEW.processing_state = 'Processed';
    BEGIN
      IF TG_OP = 'DELETE' THEN
        IF was_public THEN PERFORM sound_change_stamp(OLD.id, 'removed'); END IF;
      ELSIF is_public AND NOT was_public THEN
        IF TG_OP = 'UPDATE' AND OLD.moderation_state <> NEW.moderation_state THEN
          PERFORM sound_change_stamp(NEW.id, 'approved');
        ELSIF EXISTS (SELECT 1 FROM sound_changes WHERE sound_id = NEW.id) THEN
          PERFORM sound_change_stamp(NEW.id, 'edited');
        ELSE
          PERFORM sound_change_stamp(NEW.id, 'created');
        END IF;
      ELSIF was_public AND NOT is_public THEN
        PERFORM sound_change_stamp(NEW.id, 'removed');
      ELSIF is_public AND (to_jsonb(OLD) - ${ignored}) IS DISTINCT FROM (to_jsonb(NEW) - ${ignored}) THEN
        PERFORM sound_change_stamp(NEW.id, 'edited');
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER sounds_change_stamp AFTER INSERT OR UPDATE OR DELETE ON sounds
    FOR EACH ROW EXECUTE FUNCTION sound_changes_trigger()`.execute(db);

  // After a bulk load with triggers off: every public sound not numbered yet, as created, under one
  // number taken the way a commit takes it.
  await sql`CREATE FUNCTION sound_changes_rebuild() RETURNS void LANGUAGE sql AS $$
      WITH tick AS (UPDATE sound_changes_clock SET seq = seq + 1 WHERE id = 1 RETURNING seq)
      INSERT INTO sound_changes (sound_id, seq, kind, changed_at)
      SELECT s.id, tick.seq, 'created', now() FROM sounds s, tick
      WHERE s.moderation_state = 'ok' AND s.processing_state = 'Processed'
      ON CONFLICT (sound_id) DO NOTHING
    $$`.execute(db);
  await sql`SELECT sound_changes_rebuild()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS sounds_change_stamp ON sounds`.execute(db);
  await sql`DROP FUNCTION IF EXISTS sound_changes_rebuild()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS sound_changes_trigger()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS sound_change_stamp(integer, text)`.execute(db);
  await sql`DROP TABLE IF EXISTS sound_changes`.execute(db);
  await sql`DROP FUNCTION IF EXISTS sound_changes_number()`.execute(db);
  await sql`DROP TABLE IF EXISTS sound_changes_clock`.execute(db);
}
