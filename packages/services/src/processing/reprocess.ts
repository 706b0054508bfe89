import {
  type Db,
  getProcessingRecord,
  listFailedSoundIds,
  listStaleAnalyses,
  reprocessSound,
} from '@earshot/catalogue';
import { EarshotError } from '@earshot/common';
import { CORE_ANALYZER, EXTRACTOR_VERSION } from '@earshot/core/descriptors';
import type { ProcessingQueue } from './processing-queue.ts';

export class AlreadyProcessingError extends EarshotError {
  constructor(soundId: number) {
    super(`Sound ${soundId} is being processed right now.`, 'already_processing', 409);
  }
}

/**
 * Processes a sound again from the first stage, without a new upload (a restored original, a new
 * analyzer). Refused while a job of the sound waits or runs; a sound stuck Queued or Processing
 * whose job the queue lost is taken.
 */
export async function reprocess(db: Db, queue: ProcessingQueue, soundId: number): Promise<void> {
  const record = await getProcessingRecord(db, soundId);
  if (!record) throw new EarshotError(`There is no sound ${soundId}.`, 'not_found', 404);
  if ((record.state === 'Queued' || record.state === 'Processing') && (await queue.isBusy(soundId)))
    throw new AlreadyProcessingError(soundId);
  await reprocessSound(db, soundId);
  await queue.submit(soundId);
}

/** Reprocesses every sound whose processing failed; returns their ids. */
export async function reprocessFailed(db: Db, queue: ProcessingQueue): Promise<number[]> {
  return requeue(db, queue, await listFailedSoundIds(db));
}

/**
 * Reprocesses every sound whose descriptors an earlier version of the core's analysis made (after
 * an upgrade that changed their definitions, docs/descriptors.md); returns their ids.
 */
export async function reprocessStale(db: Db, queue: ProcessingQueue): Promise<number[]> {
  return requeue(db, queue, await listStaleAnalyses(db, CORE_ANALYZER, EXTRACTOR_VERSION));
}

/** Puts each sound back to Queued and submits it; returns the ids. */
async function requeue(db: Db, queue: ProcessingQueue, ids: number[]): Promise<number[]> {
  for (const id of ids) {
    await reprocessSound(db, id);
    await queue.submit(id);
  }
  return ids;
}
