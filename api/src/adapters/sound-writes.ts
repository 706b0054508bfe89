import type { Db } from '@earshot/catalogue';
import type { Ffmpeg } from '@earshot/core';
import { editOwnSound, type ProcessingQueue, SoundStorage, SoundUploads } from '@earshot/services';
import type { SoundWrites } from '../application/ports.ts';

/** The write use cases of `@earshot/services` behind the API's SoundWrites port. */
export function soundWrites(
  db: Db,
  dataDir: string,
  queue: ProcessingQueue,
  limits: { maxBytes: number; maxSeconds?: number; idleTimeoutMs: number },
  ffmpeg?: Ffmpeg,
): SoundWrites {
  // A partial upload's lease outlasts the longest a live request may go without a byte (the idle
  // timeout) twice over; one whose owner died is swept within that, by this process or another.
  const uploads = new SoundUploads(db, new SoundStorage(dataDir), queue, {
    maxBytes: limits.maxBytes,
    maxSeconds: limits.maxSeconds,
    partialLeaseMs: 2 * limits.idleTimeoutMs,
    ffmpeg,
  });
  uploads.receiver.startSweeping();
  return {
    maxUploadBytes: limits.maxBytes,
    checkFilename: (filename) => uploads.checkFilename(filename),
    receive: (stream, filename) => uploads.receive(stream, filename),
    discard: (file) => uploads.receiver.discard(file),
    upload: (userId, file, fields) => uploads.upload(userId, file, fields),
    describe: (userId, fields) => uploads.describe(userId, fields),
    pending: (userId) => uploads.pending(userId),
    edit: (userId, soundId, fields) => editOwnSound(db, userId, soundId, fields),
  };
}
