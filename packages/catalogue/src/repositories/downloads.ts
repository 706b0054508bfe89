import { type Db, inTransaction } from './shared.ts';

/** Logs a download of a sound's original file and counts it on the sound. */
export function recordSoundDownload(db: Db, soundId: number, userId: number | null): Promise<void> {
  return inTransaction(db, async (trx) => {
    await trx.insertInto('downloads').values({ sound_id: soundId, user_id: userId, pack_id: null }).execute();
    await trx
      .updateTable('sounds')
      .set((eb) => ({ num_downloads: eb('num_downloads', '+', 1) }))
      .where('id', '=', soundId)
      .execute();
  });
}

/** Logs a download of a whole pack and counts it on the pack. */
export function recordPackDownload(db: Db, packId: number, userId: number | null): Promise<void> {
  return inTransaction(db, async (trx) => {
    await trx.insertInto('downloads').values({ pack_id: packId, user_id: userId, sound_id: null }).execute();
    await trx
      .updateTable('packs')
      .set((eb) => ({ num_downloads: eb('num_downloads', '+', 1) }))
      .where('id', '=', packId)
      .execute();
  });
}
