import { type Kysely, sql } from 'kysely';

/**
 * Name completions that stay fast for every prefix at a million sounds. Ordered by downloads over a
 * name range, the planner either walked the downloads index until enough names matched (seconds
 * for a prefix no popular name has) or sorted the whole range (seconds for `d`). Both reads are now
 * bounded (suggest.ts): the most downloaded sounds, and the start of the name range; these two
 * covering indexes let each be an index-only scan instead of a visit to every sound it passes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sound_search_name_prefix_idx`.execute(db);
  await sql`CREATE INDEX sound_search_name_prefix_idx ON sound_search ((lower(name) COLLATE "C"))
    INCLUDE (num_downloads, id, name)`.execute(db);
  await sql`CREATE INDEX sound_search_downloads_names_idx ON sound_search (num_downloads DESC, id)
    INCLUDE (name)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sound_search_downloads_names_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS sound_search_name_prefix_idx`.execute(db);
  await sql`CREATE INDEX sound_search_name_prefix_idx ON sound_search ((lower(name) COLLATE "C"))`.execute(
    db,
  );
}
