import { type Kysely, sql } from 'kysely';

/**
 * Side structures that give exact counts without visiting every matching row of the search
 * document (reference/SEARCH.md §6: an exact count costs ~0.5–0.8 µs per match, too slow past
 * ~50k matches at 1M sounds):
 *
 * - `search_term_df`: per lexeme, how many visible sounds contain it (and how many of those have
 *   no pack): the exact count of a one-lexeme query, and with `search_term_pack` its exact number
 *   of pack groups.
 * - `search_term_pack`: per lexeme and pack, how many of the pack's sounds contain it (rows at
 *   zero are removed): the per-pack match counts of group_by_pack.
 * - `search_tag`: one row per (tag, sound) with the sound's duration: `tag:X` plus a duration
 *   range is counted by an index-only scan instead of a heap visit per match.
 *
 * A row trigger on `sound_search` keeps them in step with every insert, update and delete of the
 * document (so moderation, renames and deletions follow automatically). search_rebuild() switches
 * the trigger off and rebuilds them in bulk.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'DROP TRIGGER IF EXISTS sound_search_side_sync ON sound_search',
    'DROP FUNCTION IF EXISTS search_side_trigger()',
    'DROP FUNCTION IF EXISTS search_side_apply(tsvector, integer, integer)',
    'DROP FUNCTION IF EXISTS search_side_rebuild()',
    'DROP TABLE IF EXISTS search_term_df',
    'DROP TABLE IF EXISTS search_term_pack',
    'DROP TABLE IF EXISTS search_tag',
    // Restore the rebuild of the previous migration (without the side structures).
    PREVIOUS_REBUILD,
  ]) {
    await sql.raw(statement).execute(db);
  }
}

const DOCUMENT_COLUMNS = `id, name, description, tags, username, user_id, pack_id, pack_name, category, subcategory,
  created, license, type, channels, filesize, bitrate, bitdepth, duration, samplerate, md5, is_remix,
  was_remixed, is_explicit, num_downloads, avg_rating, num_ratings, num_comments, lat, lon`;

const DOCUMENT_SELECT = `SELECT s.id, s.name, s.description, ARRAY(SELECT lower(t) FROM unnest(s.tags) t), u.username,
    s.user_id, s.pack_id, p.name, s.category, s.subcategory, s.created, s.license, coalesce(s.type, ''),
    s.channels, s.filesize, s.bitrate, s.bitdepth, coalesce(s.duration, 0), s.samplerate, s.md5, s.is_remix,
    s.was_remixed, s.is_explicit, s.num_downloads, s.avg_rating, s.num_ratings, s.num_comments,
    s.geotag_lat, s.geotag_lon
  FROM sounds s JOIN users u ON u.id = s.user_id LEFT JOIN packs p ON p.id = s.pack_id
  WHERE s.processing_state = 'Processed' AND s.moderation_state = 'ok'`;

function rebuildFunction(withSideStructures: boolean): string {
  return `CREATE OR REPLACE FUNCTION search_rebuild() RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE n bigint;
  BEGIN
    ${withSideStructures ? "PERFORM set_config('earshot.search_bulk', 'on', true);" : ''}
    DROP INDEX IF EXISTS sound_search_tsv_idx;
    DROP INDEX IF EXISTS sound_search_tags_idx;
    DELETE FROM sound_search;
    INSERT INTO sound_search (${DOCUMENT_COLUMNS}) ${DOCUMENT_SELECT};
    GET DIAGNOSTICS n = ROW_COUNT;
    EXECUTE 'CREATE INDEX sound_search_tsv_idx ON sound_search USING gin (tsv)';
    EXECUTE 'CREATE INDEX sound_search_tags_idx ON sound_search USING gin (tags)';
    ${withSideStructures ? "PERFORM search_side_rebuild(); PERFORM set_config('earshot.search_bulk', 'off', true);" : ''}
    RETURN n;
  END $$`;
}

const PREVIOUS_REBUILD = rebuildFunction(false);

const STATEMENTS = [
  `CREATE TABLE search_term_df (
    lexeme text PRIMARY KEY,
    ndoc integer NOT NULL,
    ndoc_unpacked integer NOT NULL
  )`,
  `CREATE TABLE search_term_pack (
    lexeme text NOT NULL,
    pack_id integer NOT NULL,
    n integer NOT NULL,
    PRIMARY KEY (lexeme, pack_id)
  )`,
  // Tags are stored lower-cased in the document, and tag filters compare lower-cased.
  `CREATE TABLE search_tag (
    tag text NOT NULL,
    duration double precision NOT NULL,
    sound_id integer NOT NULL,
    PRIMARY KEY (tag, duration, sound_id)
  )`,

  // Adds (sign +1) or removes (sign -1) one document's contribution. Lexemes come sorted from
  // tsvector_to_array, so concurrent writers lock df rows in the same order.
  `CREATE FUNCTION search_side_apply(vec tsvector, pack integer, sign integer) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO search_term_df AS d (lexeme, ndoc, ndoc_unpacked)
      SELECT l, sign, CASE WHEN pack IS NULL THEN sign ELSE 0 END FROM unnest(tsvector_to_array(vec)) l ORDER BY l
      ON CONFLICT (lexeme) DO UPDATE SET ndoc = d.ndoc + EXCLUDED.ndoc, ndoc_unpacked = d.ndoc_unpacked + EXCLUDED.ndoc_unpacked;
    IF pack IS NOT NULL THEN
      INSERT INTO search_term_pack AS p (lexeme, pack_id, n)
        SELECT l, pack, sign FROM unnest(tsvector_to_array(vec)) l ORDER BY l
        ON CONFLICT (lexeme, pack_id) DO UPDATE SET n = p.n + EXCLUDED.n;
      IF sign < 0 THEN
        DELETE FROM search_term_pack WHERE pack_id = pack AND lexeme = ANY (tsvector_to_array(vec)) AND n <= 0;
      END IF;
    END IF;
  END $$`,

  `CREATE FUNCTION search_side_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('earshot.search_bulk', true) = 'on' THEN
      RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.tsv = NEW.tsv AND OLD.pack_id IS NOT DISTINCT FROM NEW.pack_id
       AND OLD.tags = NEW.tags AND OLD.duration = NEW.duration THEN
      -- Downloads, ratings and the like: nothing the side structures hold.
      RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      PERFORM search_side_apply(OLD.tsv, OLD.pack_id, -1);
      DELETE FROM search_tag WHERE tag = ANY (OLD.tags) AND duration = OLD.duration AND sound_id = OLD.id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      PERFORM search_side_apply(NEW.tsv, NEW.pack_id, 1);
      INSERT INTO search_tag (tag, duration, sound_id)
        SELECT DISTINCT t, NEW.duration, NEW.id FROM unnest(NEW.tags) t
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER sound_search_side_sync AFTER INSERT OR UPDATE OR DELETE ON sound_search
    FOR EACH ROW EXECUTE FUNCTION search_side_trigger()`,

  `CREATE FUNCTION search_side_rebuild() RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM search_term_df;
    DELETE FROM search_term_pack;
    DELETE FROM search_tag;
    INSERT INTO search_term_df (lexeme, ndoc, ndoc_unpacked)
      SELECT l, count(*), count(*) FILTER (WHERE s.pack_id IS NULL)
      FROM sound_search s, unnest(tsvector_to_array(s.tsv)) l GROUP BY l;
    INSERT INTO search_term_pack (lexeme, pack_id, n)
      SELECT l, s.pack_id, count(*)
      FROM sound_search s, unnest(tsvector_to_array(s.tsv)) l WHERE s.pack_id IS NOT NULL GROUP BY l, s.pack_id;
    INSERT INTO search_tag (tag, duration, sound_id)
      SELECT DISTINCT t, s.duration, s.id FROM sound_search s, unnest(s.tags) t;
  END $$`,
  'SELECT search_side_rebuild()',
  rebuildFunction(true),
];
