import { type Db, deleteSound, getSound } from '@earshot/catalogue';
import { EarshotError, NotFoundError } from '@earshot/common';
import type { ProcessingQueue } from '../processing/processing-queue.ts';
import type { SoundStorage } from '../storage/sound-files.ts';

export class NotYourSoundToDeleteError extends EarshotError {
  constructor(soundId: number) {
    super(`Sound ${soundId} belongs to another user; only its uploader may delete it.`, 'not_owner', 403);
  }
}

export class SoundBusyError extends EarshotError {
  constructor(soundId: number) {
    super(
      `Sound ${soundId} is being processed right now; delete it once processing ends.`,
      'sound_busy',
      409,
    );
  }
}

/**
 * Deletes a sound and everything derived from it: the row and, through the catalogue's cascades,
 * its tags, descriptors, similarity vectors, search entry, comments, ratings and bookmarks (the
 * API's similarity state follows the catalogue's change), then its folder of files (original,
 * previews, images, analysis). With `userId` only that user's sound is deleted. Refused while a
 * job of the sound waits or runs: the job would write files for a sound that no longer exists.
 */
export async function removeSound(
  db: Db,
  storage: SoundStorage,
  queue: ProcessingQueue,
  soundId: number,
  options: { userId?: number } = {},
): Promise<void> {
  const sound = await getSound(db, soundId);
  if (!sound) throw new NotFoundError(`There is no sound ${soundId}.`);
  if (options.userId !== undefined && sound.user_id !== options.userId)
    throw new NotYourSoundToDeleteError(soundId);
  if (await queue.isBusy(soundId)) throw new SoundBusyError(soundId);
  await deleteSound(db, soundId);
  await storage.removeSound(soundId);
}
