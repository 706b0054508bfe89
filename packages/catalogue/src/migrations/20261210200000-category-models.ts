import { type Kysely, sql } from 'kysely';

/**
 * The model that estimates a sound's broad-taxonomy category when its uploader gave none (issue
 * 35): derived from the sounds whose uploaders gave one, retrained as they accumulate, and stored
 * here so that every process and host estimates with the same one, and a restart keeps it. One row
 * per similarity space whose vectors it reads; `labelled_sounds` is how many labelled sounds there
 * were when it was trained (the retraining rule compares against it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE category_models (
    space text PRIMARY KEY,
    model jsonb NOT NULL,
    labelled_sounds integer NOT NULL,
    trained_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS category_models`.execute(db);
}
