import { sql } from 'kysely';
import { type Db, inTransaction } from './shared.ts';

/**
 * The catalogue's side of the duplicate rule without hashing every upload: originals are found by
 * byte size (a file of another size cannot be the same file), and the decisions for one size are
 * taken one at a time, so that a sound created under the lock is seen by the next upload of that
 * size even while its md5 is still unknown.
 */

/** An existing original an upload of the same size might duplicate. */
export interface SameSizeOriginal {
  id: number;
  /** Null until the pipeline's probe (or an upload that met it) hashed the file. */
  md5: string | null;
  /** Relative to DATA_DIR. */
  original_path: string;
  /** Null for a sound queued before sizes were kept at creation: its size is not known yet. */
  filesize: number | null;
}

/** Names the lock's key space apart from the catalogue's other advisory locks. */
const LOCK_SPACE = sql`hashtext('sounds.original-size')`;

/**
 * Runs `work` in a transaction holding a lock on originals of `size` bytes, released when the
 * transaction ends: whatever `work` writes (the new sound) is committed before the next decision
 * for that size starts. `work` must use only the transaction it is given (waiting uploads each
 * hold a pooled connection).
 */
export function withOriginalSizeLock<T>(db: Db, size: number, work: (trx: Db) => Promise<T>): Promise<T> {
  // Sizes that share a key only wait for each other; the key is the size modulo 2^31.
  const key = size % 2 ** 31;
  return inTransaction(db, async (trx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_SPACE}, ${key}::int4)`.execute(trx);
    return work(trx);
  });
}

/** Sounds whose original is `size` bytes, and those whose size is not known yet. */
export function sameSizeOriginals(db: Db, size: number) {
  return db
    .selectFrom('sounds')
    .where((eb) =>
      eb.or([eb('filesize', '=', size), eb.and([eb('filesize', 'is', null), eb('md5', 'is', null)])]),
    )
    .where('original_path', '<>', '');
}

/** Sounds whose original is `size` bytes, and those whose size is not known yet, oldest first. */
export async function listSameSizeOriginals(db: Db, size: number): Promise<SameSizeOriginal[]> {
  const rows = await sameSizeOriginals(db, size)
    .select(['id', 'md5', 'original_path', 'filesize'])
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, filesize: r.filesize === null ? null : Number(r.filesize) }));
}

/**
 * Records what an upload learnt of an existing original: its size, or its md5 and CRC-32 (the values
 * the pipeline's probe would store). Never overwrites a value already there, and leaves the md5
 * unset when another sound holds it (this one is then a duplicate that slipped in before the rule
 * was checked by size: its probe refuses it), as a unique violation would abort the transaction.
 */
export async function fillOriginalFacts(
  db: Db,
  id: number,
  facts: { filesize: number } | { md5: string; crc32: number },
): Promise<void> {
  if ('filesize' in facts) {
    await db
      .updateTable('sounds')
      .set({ filesize: facts.filesize })
      .where('id', '=', id)
      .where('filesize', 'is', null)
      .execute();
    return;
  }
  await db
    .updateTable('sounds')
    .set({ md5: facts.md5, crc32: facts.crc32 })
    .where('id', '=', id)
    .where('md5', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('sounds as holder').select('holder.id').where('holder.md5', '=', facts.md5))),
    )
    .execute();
}
