import { type Kysely, sql } from 'kysely';

/**
 * Four more side structures, for the query shapes that still visited one row per match at 1M
 * sounds (docs/search.md, "Side structures"):
 *
 * - `search_phrase (sound_id, grams)`: the adjacent-lexeme pairs of each document, hashed into
 *   2^20 buckets, with a GIN index. A phrase's pairs must all be present, so the index narrows a
 *   phrase of two common words to (nearly) its matches before the exact tsvector phrase check.
 *   Hash collisions only add candidates, never lose a match.
 * - `search_duration_hist (bucket, n)`: visible sounds per duration bucket (0.1 s below 100 s,
 *   1 s above). A duration-range count sums the buckets strictly inside the range and counts the
 *   two edge buckets exactly through the duration index; the total of all buckets is the number
 *   of visible sounds.
 * - `search_hidden_descriptors (sound_id)`: sounds that have a descriptor row but no search
 *   document (not processed, moderated away). A count of visible sounds matching a descriptor
 *   condition is then the index-only count over `sound_descriptors` minus the hidden ones that
 *   match, instead of one search-document probe per match.
 * - `search_term_df.npacks`: the number of packs holding each lexeme, so group_by_pack's number of
 *   groups is one row read instead of a count over `search_term_pack`.
 *
 * Row triggers keep them in step with every insert, edit, moderation change and deletion;
 * search_side_rebuild() (hence search_rebuild()) rebuilds them in bulk.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const version = await sql<{ v: string }>`select version() as v`.execute(db);
  // Building the GIN index over a million documents in 64 MB spills to disk; this migration's
  // transaction only. PGlite (wasm, small catalogues) keeps its default.
  if (!/emscripten|PGlite/i.test(version.rows[0]?.v ?? '')) {
    await sql`set local maintenance_work_mem = '256MB'`.execute(db);
  }
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'DROP TRIGGER IF EXISTS sound_search_fast_insert_delete ON sound_search',
    'DROP TRIGGER IF EXISTS sound_search_fast_update ON sound_search',
    'DROP TRIGGER IF EXISTS sound_descriptors_hidden_insert_delete ON sound_descriptors',
    'DROP TRIGGER IF EXISTS sound_descriptors_hidden_update ON sound_descriptors',
    'DROP FUNCTION IF EXISTS search_fast_trigger()',
    'DROP FUNCTION IF EXISTS search_hidden_descriptors_trigger()',
    PREVIOUS_SIDE_APPLY,
    PREVIOUS_SIDE_REBUILD,
    'DROP FUNCTION IF EXISTS search_fast_rebuild()',
    'DROP TABLE IF EXISTS search_phrase',
    'DROP TABLE IF EXISTS search_duration_hist',
    'DROP TABLE IF EXISTS search_hidden_descriptors',
    'DROP FUNCTION IF EXISTS search_phrase_grams(tsvector)',
    'DROP FUNCTION IF EXISTS search_duration_bucket(double precision)',
    'DROP FUNCTION IF EXISTS search_duration_bucket_start(double precision)',
    'DROP FUNCTION IF EXISTS search_duration_bucket_end(double precision)',
    'ALTER TABLE search_term_df DROP COLUMN IF EXISTS npacks',
  ]) {
    await sql.raw(statement).execute(db);
  }
}

/** The previous migration's versions, restored by down(). */
const PREVIOUS_SIDE_APPLY = `CREATE OR REPLACE FUNCTION search_side_apply(vec tsvector, pack integer, sign integer) RETURNS void LANGUAGE plpgsql AS $$
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
  END $$`;

const SIDE_REBUILD_BODY = `
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
      SELECT DISTINCT t, s.duration, s.id FROM sound_search s, unnest(s.tags) t;`;

const PREVIOUS_SIDE_REBUILD = `CREATE OR REPLACE FUNCTION search_side_rebuild() RETURNS void LANGUAGE plpgsql AS $$
  BEGIN${SIDE_REBUILD_BODY}
  END $$`;

/** Hash buckets of the lexeme pairs: 2^20 keeps the GIN index small; collisions only add candidates. */
const GRAM_MASK = 1_048_575;

const STATEMENTS = [
  // ---------- phrase pairs ----------
  // Every pair of lexemes at adjacent positions (positions, not array order: stopwords leave gaps,
  // and a phrase query needs exactly these adjacencies). Built from the stored tsvector itself, so
  // it sees the same positions the @@ phrase check sees.
  `CREATE FUNCTION search_phrase_grams(v tsvector) RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT coalesce(array_agg(DISTINCT hashtext(a.lexeme || ' ' || b.lexeme) & ${GRAM_MASK}), '{}')
    FROM (SELECT u.lexeme, p FROM unnest(v) u, unnest(u.positions) p) a
    JOIN (SELECT u.lexeme, p FROM unnest(v) u, unnest(u.positions) p) b ON b.p = a.p + 1
  $$`,
  `CREATE TABLE search_phrase (
    sound_id integer PRIMARY KEY,
    grams integer[] NOT NULL
  )`,

  // ---------- duration histogram ----------
  // Monotonic in d, so every duration in a bucket strictly between two others lies between them.
  `CREATE FUNCTION search_duration_bucket(d double precision) RETURNS double precision LANGUAGE sql
    IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN d < 100 THEN floor(d * 10) ELSE 1000 + floor(d) END $$`,
  // Bounds that hold every duration of a bucket (with a margin for rounding in d * 10, which can
  // put a duration just under 100 s in bucket 1000); the edge counts still compare the bucket
  // itself, so the margin never adds a row.
  `CREATE FUNCTION search_duration_bucket_start(k double precision) RETURNS double precision LANGUAGE sql
    IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN k <= 1000 THEN k / 10 ELSE k - 1000 END - 1e-6 $$`,
  `CREATE FUNCTION search_duration_bucket_end(k double precision) RETURNS double precision LANGUAGE sql
    IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN k <= 1000 THEN (k + 1) / 10 ELSE k - 999 END + 1e-6 $$`,
  `CREATE TABLE search_duration_hist (
    bucket double precision PRIMARY KEY,
    n bigint NOT NULL
  )`,

  // ---------- descriptors of sounds without a search document ----------
  'CREATE TABLE search_hidden_descriptors (sound_id integer PRIMARY KEY)',

  // ---------- packs per lexeme ----------
  'ALTER TABLE search_term_df ADD COLUMN npacks integer NOT NULL DEFAULT 0',
  // Pack rows first, then df rows, each in lexeme order: every writer takes the locks in the same
  // order. A pack row created (n reaches 1) or emptied (n reaches 0) moves the lexeme's npacks.
  `CREATE OR REPLACE FUNCTION search_side_apply(vec tsvector, pack integer, sign integer) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE lexemes text[] := tsvector_to_array(vec);
  BEGIN
    WITH tp AS (
      INSERT INTO search_term_pack AS p (lexeme, pack_id, n)
        SELECT l, pack, sign FROM unnest(lexemes) l WHERE pack IS NOT NULL ORDER BY l
        ON CONFLICT (lexeme, pack_id) DO UPDATE SET n = p.n + EXCLUDED.n
        RETURNING p.lexeme, p.n
    )
    INSERT INTO search_term_df AS d (lexeme, ndoc, ndoc_unpacked, npacks)
      SELECT l, sign, CASE WHEN pack IS NULL THEN sign ELSE 0 END,
        CASE WHEN sign > 0 AND tp.n = 1 THEN 1 WHEN sign < 0 AND tp.n = 0 THEN -1 ELSE 0 END
      FROM unnest(lexemes) l LEFT JOIN tp ON tp.lexeme = l ORDER BY l
      ON CONFLICT (lexeme) DO UPDATE SET ndoc = d.ndoc + EXCLUDED.ndoc,
        ndoc_unpacked = d.ndoc_unpacked + EXCLUDED.ndoc_unpacked, npacks = d.npacks + EXCLUDED.npacks;
    IF pack IS NOT NULL AND sign < 0 THEN
      DELETE FROM search_term_pack WHERE pack_id = pack AND lexeme = ANY (lexemes) AND n <= 0;
    END IF;
  END $$`,

  // ---------- bulk rebuild ----------
  `CREATE FUNCTION search_fast_rebuild() RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE search_term_df SET npacks = 0 WHERE npacks <> 0;
    UPDATE search_term_df d SET npacks = p.n
      FROM (SELECT lexeme, count(*)::int AS n FROM search_term_pack GROUP BY lexeme) p WHERE p.lexeme = d.lexeme;
    DROP INDEX IF EXISTS search_phrase_grams_idx;
    DELETE FROM search_phrase;
    INSERT INTO search_phrase (sound_id, grams) SELECT id, search_phrase_grams(tsv) FROM sound_search;
    EXECUTE 'CREATE INDEX search_phrase_grams_idx ON search_phrase USING gin (grams)';
    DELETE FROM search_duration_hist;
    INSERT INTO search_duration_hist (bucket, n)
      SELECT search_duration_bucket(duration), count(*) FROM sound_search GROUP BY 1;
    DELETE FROM search_hidden_descriptors;
    INSERT INTO search_hidden_descriptors (sound_id)
      SELECT d.sound_id FROM sound_descriptors d WHERE NOT EXISTS (SELECT 1 FROM sound_search s WHERE s.id = d.sound_id);
  END $$`,
  `CREATE OR REPLACE FUNCTION search_side_rebuild() RETURNS void LANGUAGE plpgsql AS $$
  BEGIN${SIDE_REBUILD_BODY}
    PERFORM search_fast_rebuild();
  END $$`,

  // ---------- row triggers ----------
  `CREATE FUNCTION search_fast_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('earshot.search_bulk', true) = 'on' THEN
      RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      DELETE FROM search_phrase WHERE sound_id = OLD.id;
      UPDATE search_duration_hist SET n = n - 1 WHERE bucket = search_duration_bucket(OLD.duration);
    END IF;
    IF TG_OP = 'DELETE' THEN
      -- Still has descriptors (not a deletion of the sound): they now belong to a hidden sound.
      INSERT INTO search_hidden_descriptors (sound_id)
        SELECT d.sound_id FROM sound_descriptors d WHERE d.sound_id = OLD.id
        ON CONFLICT DO NOTHING;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      INSERT INTO search_phrase (sound_id, grams) VALUES (NEW.id, search_phrase_grams(NEW.tsv))
        ON CONFLICT (sound_id) DO UPDATE SET grams = EXCLUDED.grams;
      INSERT INTO search_duration_hist AS h (bucket, n) VALUES (search_duration_bucket(NEW.duration), 1)
        ON CONFLICT (bucket) DO UPDATE SET n = h.n + 1;
    END IF;
    IF TG_OP = 'INSERT' THEN
      DELETE FROM search_hidden_descriptors WHERE sound_id = NEW.id;
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER sound_search_fast_insert_delete AFTER INSERT OR DELETE ON sound_search
    FOR EACH ROW EXECUTE FUNCTION search_fast_trigger()`,
  // Counter updates (downloads, ratings, comments) change nothing these structures hold.
  `CREATE TRIGGER sound_search_fast_update AFTER UPDATE ON sound_search
    FOR EACH ROW WHEN (OLD.tsv IS DISTINCT FROM NEW.tsv OR OLD.duration IS DISTINCT FROM NEW.duration
      OR OLD.id IS DISTINCT FROM NEW.id)
    EXECUTE FUNCTION search_fast_trigger()`,

  // A descriptor row is hidden while its sound has no search document. The sound's row lock
  // orders this against a concurrent visibility change of the same sound (which always runs
  // under that lock, from the sounds trigger): whichever commits second sees the other.
  `CREATE FUNCTION search_hidden_descriptors_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('earshot.search_bulk', true) = 'on' THEN
      RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      DELETE FROM search_hidden_descriptors WHERE sound_id = OLD.sound_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      PERFORM 1 FROM sounds WHERE id = NEW.sound_id FOR NO KEY UPDATE;
      INSERT INTO search_hidden_descriptors (sound_id)
        SELECT NEW.sound_id WHERE NOT EXISTS (SELECT 1 FROM sound_search s WHERE s.id = NEW.sound_id)
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER sound_descriptors_hidden_insert_delete AFTER INSERT OR DELETE ON sound_descriptors
    FOR EACH ROW EXECUTE FUNCTION search_hidden_descriptors_trigger()`,
  `CREATE TRIGGER sound_descriptors_hidden_update AFTER UPDATE OF sound_id ON sound_descriptors
    FOR EACH ROW WHEN (OLD.sound_id IS DISTINCT FROM NEW.sound_id) EXECUTE FUNCTION search_hidden_descriptors_trigger()`,

  'SELECT search_fast_rebuild()',
];
