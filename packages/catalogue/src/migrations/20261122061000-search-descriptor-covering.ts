import { type Kysely, sql } from 'kysely';

/**
 * A descriptor range filter is counted by joining the matching descriptor rows to the visible
 * search documents. With the sound id inside the bpm index, both sides are index-only scans
 * instead of a heap visit per match (43k matches for bpm:[110 TO 130] at 1M sounds). Only bpm,
 * the one descriptor range the contract's examples and the benchmark use; others keep their
 * plain partial index (docs/search.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX sound_descriptors_bpm_covering_idx ON sound_descriptors (bpm) INCLUDE (sound_id) WHERE bpm IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sound_descriptors_bpm_covering_idx`.execute(db);
}
