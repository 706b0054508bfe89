import type { LicenseName } from '../schema/licenses.ts';
import { type Db, inTransaction } from './shared.ts';
import { isPublic } from './sounds.ts';

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

/** What a pack's zip holds of one sound: its original file and what its attribution names. */
export interface PackFile {
  id: number;
  name: string;
  username: string;
  license: LicenseName;
  original_filename: string;
  /** Relative to DATA_DIR. */
  original_path: string;
  /** CRC-32 of the original; null for a sound stored before it was recorded. */
  crc32: number | null;
}

/**
 * The public sounds of a pack with their original files, in id order (one statement); `after` and
 * `limit` read one page of them (ids above `after`), as `packFilePages` does.
 */
export function listPackFiles(
  db: Db,
  packId: number,
  page: { after?: number; limit?: number } = {},
): Promise<PackFile[]> {
  let query = db
    .selectFrom('sounds')
    .innerJoin('users', 'users.id', 'sounds.user_id')
    .select([
      'sounds.id',
      'sounds.name',
      'users.username',
      'sounds.license',
      'sounds.original_filename',
      'sounds.original_path',
      'sounds.crc32',
    ])
    .where('sounds.pack_id', '=', packId)
    .where(isPublic);
  if (page.after !== undefined) query = query.where('sounds.id', '>', page.after);
  query = query.orderBy('sounds.id');
  if (page.limit !== undefined) query = query.limit(page.limit);
  return query.execute();
}

/**
 * The same rows a page at a time (keyset on the id): a small first page, then larger ones, each
 * asked for only when the caller has used the one before. A pack's zip starts on the first page's
 * first sound instead of after reading (and parsing) every row of a large pack.
 */
export async function* packFilePages(
  db: Db,
  packId: number,
  sizes: { first: number; next: number } = { first: 20, next: 500 },
): AsyncGenerator<PackFile[]> {
  let limit = sizes.first;
  let after: number | undefined;
  for (;;) {
    const page = await listPackFiles(db, packId, { after, limit });
    if (page.length > 0) yield page;
    if (page.length < limit) return;
    after = page[page.length - 1].id;
    limit = sizes.next;
  }
}
