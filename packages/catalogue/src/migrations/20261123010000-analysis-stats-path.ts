import { type Kysely, sql } from 'kysely';

/**
 * The pipeline stored the variant-A statistics file under the key `analysis`, while the file
 * resource looks files up by their public kind (`analysis_stats`, as `analysis_frames` already
 * was): every sound listed `analysis-stats.json` and answered 404 for it. From here the pipeline
 * stores `analysis_stats`; this renames the key of sounds processed before, so none needs
 * reprocessing. The path itself does not change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Media paths are not part of the search document: rebuilding every analyzed sound's document
  // (and its side counts) for this rename would cost minutes on a large catalogue for nothing.
  await sql`ALTER TABLE sounds DISABLE TRIGGER sounds_search_sync_update`.execute(db);
  await sql`UPDATE sounds
    SET media_paths = (media_paths - 'analysis')
      || jsonb_build_object('analysis_stats', coalesce(media_paths -> 'analysis_stats', media_paths -> 'analysis'))
    WHERE media_paths ? 'analysis'`.execute(db);
  await sql`ALTER TABLE sounds ENABLE TRIGGER sounds_search_sync_update`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sounds DISABLE TRIGGER sounds_search_sync_update`.execute(db);
  await sql`UPDATE sounds
    SET media_paths = (media_paths - 'analysis_stats') || jsonb_build_object('analysis', media_paths -> 'analysis_stats')
    WHERE media_paths ? 'analysis_stats'`.execute(db);
  await sql`ALTER TABLE sounds ENABLE TRIGGER sounds_search_sync_update`.execute(db);
}
