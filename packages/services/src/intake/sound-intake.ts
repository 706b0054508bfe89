import fs from 'node:fs/promises';
import path from 'node:path';
import {
  createSound,
  type Db,
  DuplicateSoundFileError,
  findOrCreatePack,
  findSoundIdByMd5,
  findUserByName,
  type Geotag,
  getSoundSource,
  isCatalogueUnavailable,
  LICENSES,
  type LicenseName,
  type RetryWhileUnavailableOptions,
  retryWhileUnavailable,
  setOriginalPath,
  withOriginalSizeLock,
} from '@earshot/catalogue';
import { NotFoundError, ValidationError } from '@earshot/common';
import type { SoundStorage } from '../storage/sound-files.ts';
import { checkSameFile, type SameFileVerdict } from './same-file-check.ts';

export interface NewSoundInput {
  userId: number;
  /** The file to take in (copied into the data folder). */
  file: string;
  /** The name the uploader gave the file; default: the file's own name. */
  originalFilename?: string;
  /** Default: the file name without its extension. */
  name?: string;
  tags?: string[];
  description?: string;
  license?: LicenseName;
  category?: string | null;
  subcategory?: string | null;
  packName?: string;
  geotag?: Geotag | null;
  /** The file's md5 when known already (hashed while pending description): not taken again. */
  md5?: string;
  /** The file's size when known (counted as it streamed in); else read from the file. */
  filesize?: number;
  /** The file's CRC-32 when known (taken with the md5): a pack's zip then reads the file only to send it. */
  crc32?: number | null;
  /** Move the file in (it sits in the data folder already: an upload) instead of copying it. */
  move?: boolean;
  /** Approved at once (moderation skipped). */
  approve?: boolean;
}

/** A file the catalogue already holds, naming the sound that holds it (upstream answers 400). */
export class DuplicateUploadError extends DuplicateSoundFileError {
  constructor(readonly soundId: number) {
    super();
    this.message = `Sound could not be created because the uploaded file is already part of the catalogue (sound ${soundId}).`;
  }
}

/**
 * Turns a file on disk into a catalogue sound waiting for processing: the record (born Queued:
 * the lifecycle's `queue`) and the stored original. The caller then submits it to the pipeline.
 */
export class SoundIntake {
  constructor(
    private readonly db: Db,
    private readonly storage: SoundStorage,
  ) {}

  async userIdByName(username: string): Promise<number> {
    const user = await findUserByName(this.db, username);
    if (!user)
      throw new NotFoundError(`There is no user "${username}"; create one with \`earshot users create\`.`);
    return user.id;
  }

  /**
   * Creates the sound and stores its original; returns the new sound's id. A file the catalogue
   * holds is refused (DuplicateUploadError) before anything is recorded; the file is hashed for that
   * only when an original of its size exists (same-file-check.ts), else the sound is born without an
   * md5 and the pipeline's probe fills it in. The sound and its original's path are committed
   * together under the size's lock, so the next upload of that size finds the file to compare with.
   */
  create(input: NewSoundInput): Promise<number> {
    return this.#create(input, {});
  }

  /**
   * create(), for a caller that outlives the database's host (a bulk import): an attempt that fails
   * because the catalogue cannot be reached is made again once it can, and the file becomes exactly
   * one sound. The attempt that had recorded its sound when the host went may or may not have
   * committed (the host may have died with the COMMIT): the catalogue, reached again, says which.
   * Committed, that sound is the file's; not, its stored original belongs to no sound and goes
   * (the id it was stored under is never given out again) before the file is taken in anew.
   */
  createOnce(input: NewSoundInput, options: RetryWhileUnavailableOptions = {}): Promise<number> {
    return retryWhileUnavailable(async () => {
      const attempt: { soundId?: number } = {};
      try {
        return await this.#create(input, attempt);
      } catch (err) {
        const { soundId } = attempt;
        if (soundId === undefined || !isCatalogueUnavailable(err)) throw err;
        const kept = await retryWhileUnavailable(() => getSoundSource(this.db, soundId), options);
        if (kept) return soundId;
        await this.storage.removeSound(soundId);
        throw err;
      }
    }, options);
  }

  /** `attempt.soundId`: the id the sound's record was given, before its transaction commits. */
  async #create(input: NewSoundInput, attempt: { soundId?: number }): Promise<number> {
    const originalFilename = input.originalFilename ?? path.basename(input.file);
    const size = input.filesize ?? (await fs.stat(input.file)).size;
    const pack = input.packName ? await findOrCreatePack(this.db, input.userId, input.packName) : undefined;
    let md5: string | undefined;
    let taken: { id: number } | { holder: number };
    try {
      taken = await withOriginalSizeLock(this.db, size, async (trx) => {
        const { holder, digests } = await checkSameFile(trx, this.storage, {
          path: input.file,
          size,
          md5: input.md5,
          crc32: input.crc32,
        });
        // Answered once the transaction commits: what the check learnt of the holder is kept.
        if (holder !== undefined) return { holder };
        md5 = digests?.md5;
        const { id } = await createSound(trx, {
          userId: input.userId,
          geotag: input.geotag ?? null,
          md5: md5 ?? null,
          filesize: size,
          crc32: digests?.crc32 ?? null,
          packId: pack?.id ?? null,
          name: input.name?.trim() || path.parse(originalFilename).name,
          description: input.description ?? '',
          tags: input.tags ?? [],
          license: input.license ?? 'Creative Commons 0',
          category: input.category ?? null,
          subcategory: input.subcategory ?? null,
          originalFilename,
          // Set once the file is stored under the id this insert assigns.
          originalPath: '',
          // Trusted uploaders are approved when processing finishes (the lifecycle's `finish`).
          moderationState: input.approve ? 'ok' : 'pending_moderation',
        });
        attempt.soundId = id;
        try {
          const stored = input.move
            ? await this.storage.moveOriginal(id, input.file, originalFilename)
            : await this.storage.storeOriginal(id, input.file, originalFilename);
          await setOriginalPath(trx, id, this.storage.relative(stored));
        } catch (err) {
          // The transaction's rollback takes the record away; the folder is ours to remove.
          await this.storage.removeSound(id);
          throw err;
        }
        return { id };
      });
    } catch (err) {
      // A holder of the same md5 the size lookup could not see (its size unknown and its file gone).
      if (!(err instanceof DuplicateSoundFileError) || !md5) throw err;
      const holder = await findSoundIdByMd5(this.db, md5);
      throw holder ? new DuplicateUploadError(holder) : err;
    }
    if ('holder' in taken) throw new DuplicateUploadError(taken.holder);
    return taken.id;
  }

  /**
   * Whether the catalogue holds this file already, and its digests when they had to be taken: for a
   * file kept pending its description (its sound, created later, is judged again by `create`). The
   * upload asks only when an original of the file's size exists (`addPendingUploadUnlessSameSize`
   * recorded it otherwise, with no check of its own to make).
   */
  sameFile(file: { path: string; size: number }): Promise<SameFileVerdict> {
    return withOriginalSizeLock(this.db, file.size, (trx) => checkSameFile(trx, this.storage, file));
  }
}

/** A licence name as a person types it (any case) → the contract's name. */
export function assertLicense(value: string): LicenseName {
  const match = LICENSES.find((l) => l.toLowerCase() === value.trim().toLowerCase());
  if (!match) throw new ValidationError(`Unknown licence "${value}"; use one of: ${LICENSES.join(', ')}.`);
  return match;
}
