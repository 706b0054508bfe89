import { type Kysely, sql } from 'kysely';

/**
 * Cursor walks over sound lists and searches (issue 36, docs/api.md "Cursor paging"). The first
 * page of a walk freezes the whole ordered result: `list_walks` names it (which list it is, how
 * many sounds, until when it is kept) and `list_walk_chunks` holds its ids, CHUNK at a time, with
 * what each hit carried besides its id (score, pack group, distance) when it carried anything. A
 * page reads the one or two chunks it spans, in whichever API process the client reaches.
 * Deleting a walk deletes its chunks; expired walks are pruned when a walk starts. Details are
 * JSON kept as text: nothing queries inside them, and jsonb's parse made freezing a million scored
 * hits three times slower (benchmarks/results/list-walks.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE list_walks (
    id bigserial PRIMARY KEY,
    list_key text NOT NULL,
    total integer NOT NULL CHECK (total >= 0),
    expires_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX list_walks_expiry_idx ON list_walks (expires_at)`.execute(db);
  await sql`CREATE TABLE list_walk_chunks (
    walk_id bigint NOT NULL REFERENCES list_walks(id) ON DELETE CASCADE,
    chunk integer NOT NULL,
    ids integer[] NOT NULL,
    details text,
    PRIMARY KEY (walk_id, chunk)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE list_walk_chunks`.execute(db);
  await sql`DROP TABLE list_walks`.execute(db);
}
