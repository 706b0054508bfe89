import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import {
  acquireSoundLease,
  type Db,
  getProcessingRecord,
  releaseSoundLease,
  renewSoundLease,
  type SoundLease,
  SoundLeaseLostError,
} from '@earshot/catalogue';
import type { Logger } from '@earshot/common';
import { JobDroppedError, type JobGuard, sleep } from '../jobs/execute.ts';
import { asStage, isStage } from './stages.ts';

export interface LeaseOptions {
  /** How long a lease lives without renewal: how soon a dead process's sounds are taken over. */
  ttlMs?: number;
  /** How often a running job renews its lease (a third of the lifetime by default). */
  renewMs?: number;
}

const HAND_OVER_TRIES = 4;
const HAND_OVER_WAIT_MS = 250;

/** The lease of the job running in this async context: the catalogue store fences its writes with it. */
const currentLease = new AsyncLocalStorage<SoundLease>();

export function leaseInScope(): SoundLease | undefined {
  return currentLease.getStore();
}

/** Names this process as a lease owner; unique per process even across machines and pid reuse. */
export function newLeaseOwner(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/**
 * Wraps every stage job in the sound's lease: taken before the job starts (a sound leased by another
 * process is dropped here — that process is running it, or its lease expires and a reconciler queues
 * the sound again), renewed while the handler works, given up at the end. A lease lost meanwhile
 * aborts the handler, and the catalogue store refuses its writes (fencing), so a paused-then-resumed
 * worker cannot overwrite its successor. Both runners use it; BullMQ's own lock stays, this one
 * guards the data.
 */
export function soundLeaseGuard(
  db: Db,
  logger: Logger,
  options: LeaseOptions = {},
  owner = newLeaseOwner(),
): JobGuard {
  const ttlMs = options.ttlMs ?? 30_000;
  const renewMs = options.renewMs ?? Math.max(50, Math.floor(ttlMs / 3));
  // The previous stage's process gives the lease up just after queueing this stage (BullMQ may hand
  // it to another process at once): a short wait tells that hand-over from a real owner.
  const acquire = async (soundId: number) => {
    for (let attempt = 0; ; attempt++) {
      const lease = await acquireSoundLease(db, soundId, owner, ttlMs);
      if (lease || attempt >= HAND_OVER_TRIES) return lease;
      await sleep(HAND_OVER_WAIT_MS);
    }
  };
  return async (job, run, abort) => {
    if (!isStage(job.name)) return run();
    const lease = await acquire(job.soundId);
    if (!lease) throw new JobDroppedError(`sound ${job.soundId} is leased by another process`);
    // Under the lease, the record cannot move; it must still await this stage. A job queued twice
    // (by two processes' reconcilers, say) finds the stage done by the other and stops here.
    const record = await getProcessingRecord(db, job.soundId).catch(async (err) => {
      await releaseSoundLease(db, lease).catch(() => {});
      throw err;
    });
    if (
      !record ||
      asStage(record.stage) !== job.name ||
      (record.state !== 'Queued' && record.state !== 'Processing')
    ) {
      await releaseSoundLease(db, lease);
      throw new JobDroppedError(`sound ${job.soundId} no longer awaits ${job.name}`);
    }
    let lost = false;
    let renewedAt = Date.now();
    const heartbeat = setInterval(async () => {
      try {
        if (await renewSoundLease(db, lease, ttlMs)) renewedAt = Date.now();
        else lost = true;
      } catch (err) {
        // The catalogue is unreachable: keep working until the lease would have run out.
        logger.warn({ err, soundId: job.soundId }, 'could not renew a processing lease');
        if (Date.now() - renewedAt > ttlMs) lost = true;
      }
      if (lost) {
        clearInterval(heartbeat);
        abort(new SoundLeaseLostError(job.soundId));
      }
    }, renewMs);
    heartbeat.unref();
    try {
      return await currentLease.run(lease, run);
    } catch (err) {
      const cause = (err as { error?: unknown }).error ?? err;
      if (lost || cause instanceof SoundLeaseLostError)
        throw new JobDroppedError(`lost the lease of sound ${job.soundId}`, { cause: err });
      throw err;
    } finally {
      clearInterval(heartbeat);
      if (!lost) await releaseSoundLease(db, lease).catch(() => {});
    }
  };
}
