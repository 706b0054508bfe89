import { type Kysely, sql } from 'kysely';

/**
 * The search document: one row per visible sound (processed and moderated OK) holding everything
 * text search filters, ranks and sorts on, with a weighted tsvector (A tags, B description,
 * C name + pack name, D username). Triggers on the store's tables keep it current, so no
 * writer has to remember to reindex.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'DROP TRIGGER IF EXISTS sounds_search_sync ON sounds',
    'DROP TRIGGER IF EXISTS users_search_sync ON users',
    'DROP TRIGGER IF EXISTS packs_search_sync ON packs',
    'DROP FUNCTION IF EXISTS search_sounds_trigger()',
    'DROP FUNCTION IF EXISTS search_users_trigger()',
    'DROP FUNCTION IF EXISTS search_packs_trigger()',
    'DROP FUNCTION IF EXISTS search_refresh_sound(integer)',
    'DROP FUNCTION IF EXISTS search_rebuild()',
    'DROP INDEX IF EXISTS comments_search_fts_idx',
    'DROP TABLE IF EXISTS sound_search',
    'DROP FUNCTION IF EXISTS search_tags_text(text[])',
  ]) {
    await sql.raw(statement).execute(db);
  }
}

const DOCUMENT_COLUMNS = `id, name, description, tags, username, user_id, pack_id, pack_name, category, subcategory,
  created, license, type, channels, filesize, bitrate, bitdepth, duration, samplerate, md5, is_remix,
  was_remixed, is_explicit, num_downloads, avg_rating, num_ratings, num_comments, lat, lon`;

/** The document of every visible sound, straight from the store's tables. */
const DOCUMENT_SELECT = `SELECT s.id, s.name, s.description, ARRAY(SELECT lower(t) FROM unnest(s.tags) t), u.username,
    s.user_id, s.pack_id, p.name, s.category, s.subcategory, s.created, s.license, coalesce(s.type, ''),
    s.channels, s.filesize, s.bitrate, s.bitdepth, coalesce(s.duration, 0), s.samplerate, s.md5, s.is_remix,
    s.was_remixed, s.is_explicit, s.num_downloads, s.avg_rating, s.num_ratings, s.num_comments,
    s.geotag_lat, s.geotag_lon
  FROM sounds s JOIN users u ON u.id = s.user_id LEFT JOIN packs p ON p.id = s.pack_id
  WHERE s.processing_state = 'Processed' AND s.moderation_state = 'ok'`;

/** Rebuilding drops and recreates these: building a GIN index at once is several times faster than filling it row by row. */
const GIN_INDEXES = [
  'CREATE INDEX sound_search_tsv_idx ON sound_search USING gin (tsv)',
  'CREATE INDEX sound_search_tags_idx ON sound_search USING gin (tags)',
];

const STATEMENTS = [
  // array_to_string is only STABLE; a generated column needs an IMMUTABLE expression.
  `CREATE FUNCTION search_tags_text(text[]) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT array_to_string($1, ' ') $$`,
  `CREATE TABLE sound_search (
    id integer PRIMARY KEY REFERENCES sounds (id) ON DELETE CASCADE,
    name text NOT NULL,
    description text NOT NULL,
    tags text[] NOT NULL,
    username text NOT NULL,
    user_id integer NOT NULL,
    pack_id integer,
    pack_name text,
    category text,
    subcategory text,
    created timestamptz NOT NULL,
    license text NOT NULL,
    type text NOT NULL,
    channels integer,
    filesize bigint,
    bitrate double precision,
    bitdepth integer,
    duration double precision NOT NULL,
    samplerate integer,
    md5 text,
    is_remix boolean NOT NULL,
    was_remixed boolean NOT NULL,
    is_explicit boolean NOT NULL,
    num_downloads integer NOT NULL,
    avg_rating double precision NOT NULL,
    num_ratings integer NOT NULL,
    num_comments integer NOT NULL,
    lat double precision,
    lon double precision,
    tsv tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('english'::regconfig, search_tags_text(tags)), 'A')
      || setweight(to_tsvector('english'::regconfig, description), 'B')
      || setweight(to_tsvector('english'::regconfig, name || ' ' || coalesce(pack_name, '')), 'C')
      || setweight(to_tsvector('english'::regconfig, username), 'D')
    ) STORED
  )`,
  ...GIN_INDEXES,
  'CREATE INDEX sound_search_created_idx ON sound_search (created)',
  'CREATE INDEX sound_search_downloads_idx ON sound_search (num_downloads)',
  'CREATE INDEX sound_search_rating_idx ON sound_search (avg_rating, num_ratings)',
  'CREATE INDEX sound_search_duration_idx ON sound_search (duration)',
  'CREATE INDEX sound_search_pack_idx ON sound_search (pack_id) WHERE pack_id IS NOT NULL',
  'CREATE INDEX sound_search_user_idx ON sound_search (user_id)',
  'CREATE INDEX sound_search_username_idx ON sound_search (lower(username))',
  // Geotag boxes: a plain B-tree beat GiST for rectangles at 1M sounds (reference/SEARCH.md).
  'CREATE INDEX sound_search_geo_idx ON sound_search (lat, lon) WHERE lat IS NOT NULL',
  "CREATE INDEX comments_search_fts_idx ON comments USING gin (to_tsvector('english'::regconfig, comment))",

  `CREATE FUNCTION search_refresh_sound(sound integer) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO sound_search (${DOCUMENT_COLUMNS}) ${DOCUMENT_SELECT} AND s.id = sound
    ON CONFLICT (id) DO UPDATE SET (${DOCUMENT_COLUMNS}) = (${DOCUMENT_COLUMNS.split(',')
      .map((c) => `EXCLUDED.${c.trim()}`)
      .join(', ')});
    IF NOT FOUND THEN
      DELETE FROM sound_search WHERE id = sound;
    END IF;
  END $$`,
  // Bulk (re)indexing after a load done with triggers off (session_replication_role = replica).
  `CREATE FUNCTION search_rebuild() RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE n bigint;
  BEGIN
    DROP INDEX IF EXISTS sound_search_tsv_idx;
    DROP INDEX IF EXISTS sound_search_tags_idx;
    DELETE FROM sound_search;
    INSERT INTO sound_search (${DOCUMENT_COLUMNS}) ${DOCUMENT_SELECT};
    GET DIAGNOSTICS n = ROW_COUNT;
    ${GIN_INDEXES.map((statement) => `EXECUTE '${statement}';`).join('\n    ')}
    RETURN n;
  END $$`,

  `CREATE FUNCTION search_sounds_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM search_refresh_sound(NEW.id);
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER sounds_search_sync AFTER INSERT OR UPDATE ON sounds
    FOR EACH ROW EXECUTE FUNCTION search_sounds_trigger()`,
  `CREATE FUNCTION search_users_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE sound_search SET username = NEW.username WHERE user_id = NEW.id;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER users_search_sync AFTER UPDATE OF username ON users
    FOR EACH ROW WHEN (OLD.username IS DISTINCT FROM NEW.username) EXECUTE FUNCTION search_users_trigger()`,
  `CREATE FUNCTION search_packs_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE sound_search SET pack_name = NEW.name WHERE pack_id = NEW.id;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER packs_search_sync AFTER UPDATE OF name ON packs
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION search_packs_trigger()`,
];
