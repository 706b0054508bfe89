import { type Kysely, sql } from 'kysely';

/**
 * `descriptor_ranges`: for every numeric leaf of the variant-A analysis tree (`analysis_a`), the
 * smallest and largest value a visible sound has had. Variant A's `normalized=1` scales a value
 * into [0, 1] over this range (docs/descriptors.md, "Normalized values"). A leaf is named as
 * content filters name it: `lowlevel.spectral_centroid.mean`, one dimension of a fixed-length
 * vector as `lowlevel.mfcc.mean[3]`.
 *
 * Row triggers widen the ranges in the same transaction as a sound becomes visible (its search
 * document is inserted) or a visible sound's tree is stored: every later read sees them. Only the
 * rows a sound moves are locked; storing a full tree (about 3,400 leaves) costs some 25–75 ms more.
 * A sound leaving does not narrow them: finding the next extreme means reading every visible tree
 * (a first version that did so in the trigger took 65 s to hide one sound among 60 full trees), so
 * descriptor_ranges_rebuild() recomputes them exactly when wanted, and after a bulk load (triggers
 * off, or `earshot.search_bulk` on).
 */

/**
 * Lists whose length varies from sound to sound: a per-element range means nothing there, so they
 * have none (their values are served as they are). This migration's own copy of core's list
 * (descriptors/descriptor-layout.ts), as migrations keep what they built; like core's
 * normalizationRanges, `metadata` is not a descriptor and has no ranges either.
 */
const VARIABLE_LENGTH = [
  'rhythm.beats_position',
  'rhythm.bpm_intervals',
  'rhythm.onset_times',
  'tonal.chords_progression',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'DROP TRIGGER IF EXISTS sound_search_descriptor_ranges ON sound_search',
    'DROP TRIGGER IF EXISTS sound_descriptors_ranges ON sound_descriptors',
    'DROP FUNCTION IF EXISTS descriptor_ranges_search_trigger()',
    'DROP FUNCTION IF EXISTS descriptor_ranges_descriptors_trigger()',
    'DROP FUNCTION IF EXISTS descriptor_ranges_rebuild()',
    'DROP FUNCTION IF EXISTS descriptor_ranges_widen(jsonb)',
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
    min double precision NOT NULL,
    max double precision NOT NULL
  )`,

  // Every numeric leaf of a tree: plain numbers, and each element of a fixed-length numeric list.
  // The CASEs keep jsonb_each/jsonb_array_elements from ever seeing another kind of node. Without
  // jit = off, the recursive walk's row estimates (a million) made PostgreSQL JIT-compile every
  // call: 130–190 ms of a 200 ms call; ROWS is about what one full tree has.
  `CREATE FUNCTION descriptor_leaves(tree jsonb) RETURNS TABLE (name text, value double precision)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 4000 SET jit = off AS $$
    WITH RECURSIVE walk(path, node) AS (
      SELECT e.key, e.value
        FROM jsonb_each(CASE WHEN jsonb_typeof(tree) = 'object' THEN tree ELSE '{}'::jsonb END) e
        WHERE e.key <> 'metadata'
      UNION ALL
      SELECT w.path || '.' || e.key, e.value
        FROM walk w
        CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(w.node) = 'object' THEN w.node ELSE '{}'::jsonb END) e
    )
    SELECT w.path, w.node::double precision FROM walk w WHERE jsonb_typeof(w.node) = 'number'
    UNION ALL
    SELECT w.path || '[' || (a.i - 1) || ']', a.elem::double precision
      FROM walk w
      CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(w.node) = 'array' THEN w.node ELSE '[]'::jsonb END)
        WITH ORDINALITY AS a(elem, i)
      WHERE jsonb_typeof(a.elem) = 'number' AND w.path <> ALL (${variableLength})
  $$`,

  // A visible sound's tree joins the ranges. The leaves are walked once into arrays. New leaves
  // first (a concurrent insert of the same leaf makes this wait, then the UPDATE sees it); then
  // only the rows the tree moves are locked, in name order, so two writers never deadlock.
  `CREATE FUNCTION descriptor_ranges_widen(tree jsonb) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    names text[];
    vals double precision[];
  BEGIN
    SELECT array_agg(l.name), array_agg(l.value) INTO names, vals FROM descriptor_leaves(tree) l;
    IF names IS NULL THEN
      RETURN;
    END IF;
    INSERT INTO descriptor_ranges (name, min, max)
      SELECT u.name, u.value, u.value FROM unnest(names, vals) AS u(name, value)
      ORDER BY u.name
      ON CONFLICT (name) DO NOTHING;
    PERFORM 1 FROM descriptor_ranges r JOIN unnest(names, vals) AS u(name, value) ON u.name = r.name
      WHERE u.value < r.min OR u.value > r.max
      ORDER BY r.name FOR UPDATE OF r;
    UPDATE descriptor_ranges r SET min = least(r.min, u.value), max = greatest(r.max, u.value)
      FROM unnest(names, vals) AS u(name, value)
      WHERE u.name = r.name AND (u.value < r.min OR u.value > r.max);
  END $$`,

  `CREATE FUNCTION descriptor_ranges_rebuild() RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM descriptor_ranges;
    INSERT INTO descriptor_ranges (name, min, max)
      SELECT l.name, min(l.value), max(l.value)
        FROM sound_descriptors d JOIN sound_search s ON s.id = d.sound_id
        CROSS JOIN LATERAL descriptor_leaves(d.analysis_a) l
        WHERE d.analysis_a <> '{}'::jsonb
        GROUP BY l.name;
  END $$`,

  // A sound becomes visible: the search document exists exactly while it is.
  `CREATE FUNCTION descriptor_ranges_search_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('earshot.search_bulk', true) = 'on' THEN
      RETURN NULL;
    END IF;
    PERFORM descriptor_ranges_widen(d.analysis_a) FROM sound_descriptors d WHERE d.sound_id = NEW.id;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER sound_search_descriptor_ranges AFTER INSERT ON sound_search
    FOR EACH ROW EXECUTE FUNCTION descriptor_ranges_search_trigger()`,

  // A visible sound's tree stored or replaced. The sound's row lock orders this against a
  // concurrent visibility change (which runs under that lock, from the sounds trigger).
  `CREATE FUNCTION descriptor_ranges_descriptors_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('earshot.search_bulk', true) = 'on' THEN
      RETURN NULL;
    END IF;
    PERFORM 1 FROM sounds WHERE id = NEW.sound_id FOR NO KEY UPDATE;
    IF EXISTS (SELECT 1 FROM sound_search s WHERE s.id = NEW.sound_id) THEN
      PERFORM descriptor_ranges_widen(NEW.analysis_a);
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER sound_descriptors_ranges AFTER INSERT OR UPDATE OF analysis_a, sound_id ON sound_descriptors
    FOR EACH ROW EXECUTE FUNCTION descriptor_ranges_descriptors_trigger()`,

  'SELECT descriptor_ranges_rebuild()',
];
