import fs from 'node:fs/promises';
import { type Db, fillOriginalFacts, listSameSizeOriginals } from '@earshot/catalogue';
import type { SoundStorage } from '../storage/sound-files.ts';
import { digestFile } from './file-digest.ts';

/** A file about to be taken in, with what is known of it already. */
export interface FileToCheck {
  path: string;
  size: number;
  /** Known when it was hashed before (a file pending description from before hashing was deferred). */
  md5?: string;
  crc32?: number | null;
}

export interface SameFileVerdict {
  /** The sound whose original holds the same bytes, when there is one. */
  holder?: number;
  /** The file's digests when they had to be taken (or were given); else the pipeline's probe takes them. */
  digests?: { md5: string; crc32: number | null };
}

/**
 * The duplicate rule (a file the catalogue holds is refused, naming the sound that holds it) by
 * size first: only an original of the same byte size can hold the same bytes, so the file is hashed
 * only when one exists, and an original not hashed yet (queued, not probed) is hashed now and its
 * md5 kept. Run it under `withOriginalSizeLock` with the transaction it gives: two uploads of the
 * same size are then judged one after the other, the second seeing the first's sound.
 */
export async function checkSameFile(
  trx: Db,
  storage: SoundStorage,
  file: FileToCheck,
): Promise<SameFileVerdict> {
  let digests = file.md5 ? { md5: file.md5, crc32: file.crc32 ?? null } : undefined;
  for (const original of await listSameSizeOriginals(trx, file.size)) {
    const originalPath = storage.absolute(original.original_path);
    if (original.filesize === null) {
      // Queued before sizes were kept at creation: learn its size once.
      const stat = await fs.stat(originalPath).catch(() => undefined);
      if (!stat) continue;
      await fillOriginalFacts(trx, original.id, { filesize: stat.size });
      if (stat.size !== file.size) continue;
    }
    digests ??= await digestFile(file.path, file.size);
    let md5 = original.md5;
    if (md5 === null) {
      // A missing original (its sound failed and was cleaned away) holds nothing to compare.
      const theirs = await digestFile(originalPath, file.size).catch(() => undefined);
      if (!theirs) continue;
      await fillOriginalFacts(trx, original.id, theirs);
      md5 = theirs.md5;
    }
    if (md5 === digests.md5) return { holder: original.id, digests };
  }
  return { digests };
}
