import { type Kysely, sql } from 'kysely';

/**
 * `descriptor_ranges`: for every numeric leaf of the variant-A analysis tree (`analysis_a`), the
 * smallest and largest value over the visible sounds, and one sound holding each. Variant A's
 * `normalized=1` scales a value into [0, 1] over this range (docs/descriptors.md, "Normalized
 * values"). A leaf is named as content filters name it: `lowlevel.spectral_centroid.mean`, one
 * dimension of a fixed-length vector as `lowlevel.mfcc.mean[3]`.
 *
 * Row triggers keep it exact as the visible set changes:
 * - a sound becoming visible (its search document is inserted), or a visible sound's tree stored,
 *   widens every range its values fall outside of (only the rows that move are locked);
 * - a sound leaving (document deleted, tree replaced or deleted) recomputes just the leaves whose
 *   minimum or maximum it held, over the visible sounds left. That read is one pass over the
 *   visible trees for those leaves: cheap unless the sound held many extremes of a large catalogue.
 * Bulk loads (triggers off, or `earshot.search_bulk` on) call descriptor_ranges_rebuild() after.
 */

/**
 * Lists whose length varies from sound to sound: a per-element range means nothing there, so they
 * have none (their values are served as they are). This migration's own copy of the list core
 * keeps as VARIABLE_LENGTH_DESCRIPTORS (variant-A names only), as migrations keep what they built.
 */
const VARIABLE_LENGTH = ['rhythm.beats_position', 'rhythm.bpm_intervals', 'rhythm.onset_times'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'DROP TRIGGER IF EXISTS sound_search_descriptor_ranges ON sound_search',
    'DROP TRIGGER IF EXISTS sound_descriptors_ranges_insert_delete ON sound_descriptors',
    'DROP TRIGGER IF EXISTS sound_descriptors_ranges_update ON sound_descriptors',
    'DROP FUNCTION IF EXISTS descriptor_ranges_search_trigger()',
    'DROP FUNCTION IF EXISTS descriptor_ranges_descriptors_trigger()',
    'DROP FUNCTION IF EXISTS descriptor_ranges_rebuild()',
    'DROP FUNCTION IF EXISTS descriptor_ranges_widen(integer, jsonb)',
    'DROP FUNCTION IF EXISTS descriptor_ranges_release(integer)',
    'DROP FUNCTION IF EXISTS descriptor_leaves(jsonb)',
    'DROP TABLE IF EXISTS descriptor_ranges',
  ]) {
    await sql.raw(statement).execute(db);
  }
}

const variableLength = `ARRAY[${VARIABLE_LENGTH.map((n) => `'${n}'`).join(', ')}]::text[]`;

const STATEMENTS = [
  `CREATE TABLE descriptor_ranges (
    name text PRIMARY KEY,
    path text[] NOT NULL,
    min double precision NOT NULL,
    max double precision NOT NULL,
    min_sound integer NOT NULL,
    max_sound integer NOT NULL
  )`,
  // Recomputing after a sound leaves looks up the leaves it holds.
  'CREATE INDEX descriptor_ranges_min_sound_idx ON descriptor_ranges (min_sound)',
  'CREATE INDEX descriptor_ranges_max_sound_idx ON descriptor_ranges (max_sound)',

  // Every numeric leaf of a tree: plain numbers, and each element of a fixed-length numeric list.
  // The CASEs keep jsonb_each/jsonb_array_elements from ever seeing another kind of node.
  `CREATE FUNCTION descriptor_leaves(tree jsonb)
    RETURNS TABLE (name text, path text[], value double precision)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH RECURSIVE walk(path, node) AS (
      SELECT ARRAY[e.key], e.value
        FROM jsonb_each(CASE WHEN jsonb_typeof(tree) = 'object' THEN tree ELSE '{}'::jsonb END) e
      UNION ALL
      SELECT w.path || e.key, e.value
        FROM walk w
        CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(w.node) = 'object' THEN w.node ELSE '{}'::jsonb END) e
    )
    SELECT array_to_string(w.path, '.'), w.path, w.node::double precision
      FROM walk w WHERE jsonb_typeof(w.node) = 'number'
    UNION ALL
    SELECT array_to_string(w.path, '.') || '[' || (a.i - 1) || ']', w.path || (a.i - 1)::text,
           a.elem::double precision
      FROM walk w
      CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(w.node) = 'array' THEN w.node ELSE '[]'::jsonb END)
        WITH ORDINALITY AS a(elem, i)
      WHERE jsonb_typeof(a.elem) = 'number' AND array_to_string(w.path, '.') <> ALL (${variableLength})
  $$`,

  // A visible sound's tree joins the ranges. New leaves first (a concurrent insert of the same
  // leaf makes this wait, then the UPDATE below sees it); then only the rows it moves are locked,
  // in name order so two writers never wait on each other in a circle.
  `CREATE FUNCTION descriptor_ranges_widen(sound integer, tree jsonb) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO descriptor_ranges (name, path, min, max, min_sound, max_sound)
      SELECT l.name, l.path, l.value, l.value, sound, sound FROM descriptor_leaves(tree) l
      ORDER BY l.name
      ON CONFLICT (name) DO NOTHING;
    PERFORM 1 FROM descriptor_ranges r JOIN descriptor_leaves(tree) l ON l.name = r.name
      WHERE l.value < r.min OR l.value > r.max
      ORDER BY r.name FOR UPDATE OF r;
    UPDATE descriptor_ranges r SET
        min_sound = CASE WHEN l.value < r.min THEN sound ELSE r.min_sound END,
        max_sound = CASE WHEN l.value > r.max THEN sound ELSE r.max_sound END,
        min = least(r.min, l.value),
        max = greatest(r.max, l.value)
      FROM descriptor_leaves(tree) l
      WHERE l.name = r.name AND (l.value < r.min OR l.value > r.max);
  END $$`,

  // The leaves whose extreme a sound held, recomputed over the visible sounds as they are now
  // (the sound's new tree included when it is still visible); a leaf no visible sound has is gone.
  `CREATE FUNCTION descriptor_ranges_release(sound integer) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    WITH held AS (
      SELECT r.name, r.path FROM descriptor_ranges r WHERE r.min_sound = sound
      UNION SELECT r.name, r.path FROM descriptor_ranges r WHERE r.max_sound = sound
    ),
    found AS (
      SELECT h.name, d.sound_id, d.analysis_a #> h.path AS v
        FROM held h CROSS JOIN sound_descriptors d JOIN sound_search s ON s.id = d.sound_id
    ),
    agg AS (
      SELECT f.name, min(f.v::double precision) AS lo, max(f.v::double precision) AS hi,
             (array_agg(f.sound_id ORDER BY f.v::double precision, f.sound_id))[1] AS lo_sound,
             (array_agg(f.sound_id ORDER BY f.v::double precision DESC, f.sound_id))[1] AS hi_sound
        FROM found f WHERE jsonb_typeof(f.v) = 'number' GROUP BY f.name
    ),
    updated AS (
      UPDATE descriptor_ranges r SET min = a.lo, max = a.hi, min_sound = a.lo_sound, max_sound = a.hi_sound
        FROM agg a WHERE r.name = a.name
    )
    DELETE FROM descriptor_ranges r USING held h
      WHERE r.name = h.name AND NOT EXISTS (SELECT 1 FROM agg a WHERE a.name = h.name);
  END $$`,

  `CREATE FUNCTION descriptor_ranges_rebuild() RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM descriptor_ranges;
    INSERT INTO descriptor_ranges (name, path, min, max, min_sound, max_sound)
      SELECT l.name, min(l.path), min(l.value), max(l.value),
             (array_agg(d.sound_id ORDER BY l.value, d.sound_id))[1],
             (array_agg(d.sound_id ORDER BY l.value DESC, d.sound_id))[1]
        FROM sound_descriptors d JOIN sound_search s ON s.id = d.sound_id
        CROSS JOIN LATERAL descriptor_leaves(d.analysis_a) l
        WHERE d.analysis_a <> '{}'::jsonb
        GROUP BY l.name;
  END $$`,

  // Visibility: the search document exists exactly while a sound is visible.
  `CREATE FUNCTION descriptor_ranges_search_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('earshot.search_bulk', true) = 'on' THEN
      RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
      PERFORM descriptor_ranges_widen(NEW.id, d.analysis_a)
        FROM sound_descriptors d WHERE d.sound_id = NEW.id;
    ELSE
      PERFORM descriptor_ranges_release(OLD.id);
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER sound_search_descriptor_ranges AFTER INSERT OR DELETE ON sound_search
    FOR EACH ROW EXECUTE FUNCTION descriptor_ranges_search_trigger()`,

  // A visible sound's tree stored, replaced or deleted. The sound's row lock orders this against
  // a concurrent visibility change (which runs under that lock, from the sounds trigger).
  `CREATE FUNCTION descriptor_ranges_descriptors_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('earshot.search_bulk', true) = 'on' THEN
      RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      PERFORM descriptor_ranges_release(OLD.sound_id);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      PERFORM 1 FROM sounds WHERE id = NEW.sound_id FOR NO KEY UPDATE;
      IF EXISTS (SELECT 1 FROM sound_search s WHERE s.id = NEW.sound_id) THEN
        PERFORM descriptor_ranges_widen(NEW.sound_id, NEW.analysis_a);
      END IF;
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER sound_descriptors_ranges_insert_delete AFTER INSERT OR DELETE ON sound_descriptors
    FOR EACH ROW EXECUTE FUNCTION descriptor_ranges_descriptors_trigger()`,
  `CREATE TRIGGER sound_descriptors_ranges_update AFTER UPDATE OF analysis_a, sound_id ON sound_descriptors
    FOR EACH ROW WHEN (OLD.analysis_a IS DISTINCT FROM NEW.analysis_a OR OLD.sound_id IS DISTINCT FROM NEW.sound_id)
    EXECUTE FUNCTION descriptor_ranges_descriptors_trigger()`,

  'SELECT descriptor_ranges_rebuild()',
];
