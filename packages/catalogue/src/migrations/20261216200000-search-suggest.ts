import { type Kysely, sql } from 'kysely';

/**
 * What autocomplete (`/apiv2/search/suggest/`) reads, by prefix, without visiting the sounds:
 *
 * - `search_tag_use`: per tag, how many public sounds carry it (`search_tag` has one row per tag
 *   and public sound). Statement triggers with transition tables keep it in step with every
 *   change of `search_tag`, a rebuild's bulk delete and insert included, one upsert per tag and
 *   statement (tags in order, so concurrent writers lock them in the same order).
 * - an index of the public sounds' lower-cased names.
 *
 * Both in the "C" collation: a prefix is then the range [prefix, next prefix), which a plain
 * b-tree answers whatever the database's collation, with a generic plan too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE search_tag_use (
    tag text COLLATE "C" PRIMARY KEY,
    n integer NOT NULL
  )`.execute(db);
  await sql`INSERT INTO search_tag_use (tag, n) SELECT tag, count(*) FROM search_tag GROUP BY tag`.execute(
    db,
  );

  await sql`CREATE FUNCTION search_tag_use_added() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO search_tag_use AS u (tag, n)
      SELECT tag, count(*) FROM added GROUP BY tag ORDER BY tag
      ON CONFLICT (tag) DO UPDATE SET n = u.n + EXCLUDED.n;
    RETURN NULL;
  END $$`.execute(db);
  await sql`CREATE FUNCTION search_tag_use_removed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE search_tag_use u SET n = u.n - r.n
      FROM (SELECT tag, count(*)::integer AS n FROM removed GROUP BY tag ORDER BY tag) r
      WHERE u.tag = r.tag;
    DELETE FROM search_tag_use WHERE n <= 0 AND tag IN (SELECT tag FROM removed);
    RETURN NULL;
  END $$`.execute(db);
  await sql`CREATE TRIGGER search_tag_use_insert AFTER INSERT ON search_tag
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION search_tag_use_added()`.execute(db);
  await sql`CREATE TRIGGER search_tag_use_delete AFTER DELETE ON search_tag
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION search_tag_use_removed()`.execute(
    db,
  );

  await sql`CREATE INDEX sound_search_name_prefix_idx ON sound_search ((lower(name) COLLATE "C"))`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sound_search_name_prefix_idx`.execute(db);
  await sql`DROP TRIGGER IF EXISTS search_tag_use_delete ON search_tag`.execute(db);
  await sql`DROP TRIGGER IF EXISTS search_tag_use_insert ON search_tag`.execute(db);
  await sql`DROP FUNCTION IF EXISTS search_tag_use_removed()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS search_tag_use_added()`.execute(db);
  await sql`DROP TABLE IF EXISTS search_tag_use`.execute(db);
}
