import { sql } from 'kysely';
import type { Db } from './shared.ts';
import { PUBLIC_SOUND } from './sounds.ts';

/**
 * Reads only the version 1 interface needs: where a sound's analysis stands (its analysis
 * resource tells "not yet" from "failed") and where its stored original is (`serve`).
 */

/**
 * `missing`: no approved sound with that id; `ready`: descriptors exist and the sound is public;
 * `pending`: approved and still queued or being (re)processed; `failed`: processing failed, or it
 * finished without analysis.
 */
export type AnalysisState = 'missing' | 'ready' | 'pending' | 'failed';

export async function soundAnalysisState(db: Db, soundId: number): Promise<AnalysisState> {
  const row = await db
    .selectFrom('sounds as s')
    .where('s.id', '=', soundId)
    .where('s.moderation_state', '=', PUBLIC_SOUND.moderation_state)
    .select([
      's.processing_state',
      sql<boolean>`exists (select 1 from sound_descriptors d where d.sound_id = s.id)`.as('analyzed'),
    ])
    .executeTakeFirst();
  if (!row) return 'missing';
  if (row.processing_state === 'Queued' || row.processing_state === 'Processing') return 'pending';
  if (row.processing_state === 'Failed') return 'failed';
  return row.analyzed ? 'ready' : 'failed';
}

/** The stored original of a public sound, relative to DATA_DIR, with the name it was uploaded as. */
export async function publicOriginalFile(
  db: Db,
  soundId: number,
): Promise<{ path: string; filename: string } | undefined> {
  const row = await db
    .selectFrom('sounds')
    .where('id', '=', soundId)
    .where('moderation_state', '=', PUBLIC_SOUND.moderation_state)
    .where('processing_state', '=', PUBLIC_SOUND.processing_state)
    .select(['original_path', 'original_filename'])
    .executeTakeFirst();
  if (!row?.original_path) return undefined;
  return { path: row.original_path, filename: row.original_filename };
}
