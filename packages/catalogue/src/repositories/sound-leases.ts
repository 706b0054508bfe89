import { EarshotError } from '@earshot/common';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../schema/database.ts';
import { type Db, inTransaction } from './shared.ts';

/** A lease as its holder knows it: the epoch is what fences its writes. */
export interface SoundLease {
  soundId: number;
  owner: string;
  epoch: number;
}

/** The lease is gone (expired and taken over, or the sound deleted): the holder must stop writing. */
export class SoundLeaseLostError extends EarshotError {
  constructor(soundId: number) {
    super(`This process no longer holds the processing lease of sound ${soundId}.`, 'lease_lost', 409);
  }
}

/**
 * Takes the sound's lease for `ttlMs` when nobody holds a live one, or when `owner` already does
 * (the next stage of a sound runs in the process that ran the last). One statement, so two
 * processes racing for it cannot both win. Undefined: another owner holds it, or the sound is gone.
 */
export async function acquireSoundLease(
  db: Db,
  soundId: number,
  owner: string,
  ttlMs: number,
): Promise<SoundLease | undefined> {
  const { rows } = await sql<{ epoch: number }>`
    INSERT INTO sound_leases (sound_id, owner, epoch, expires_at)
    SELECT id, ${owner}, 1, now() + make_interval(secs => ${ttlMs / 1000}) FROM sounds WHERE id = ${soundId}
    ON CONFLICT (sound_id) DO UPDATE
      SET owner = excluded.owner, epoch = sound_leases.epoch + 1, expires_at = excluded.expires_at
      WHERE sound_leases.expires_at <= now() OR sound_leases.owner = excluded.owner
    RETURNING epoch`.execute(db);
  return rows[0] ? { soundId, owner, epoch: Number(rows[0].epoch) } : undefined;
}

/** Moves the expiry on; false when the lease is no longer this holder's. */
export async function renewSoundLease(db: Db, lease: SoundLease, ttlMs: number): Promise<boolean> {
  const { rows } = await sql`
    UPDATE sound_leases SET expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    WHERE sound_id = ${lease.soundId} AND owner = ${lease.owner} AND epoch = ${lease.epoch}
    RETURNING sound_id`.execute(db);
  return rows.length === 1;
}

/**
 * Gives the lease up (a no-op when it was taken over meanwhile). The row stays, expired, so that the
 * next acquisition's epoch is still higher than every earlier one (a deleted row would start at 1 again).
 */
export async function releaseSoundLease(db: Db, lease: SoundLease): Promise<void> {
  await sql`
    UPDATE sound_leases SET expires_at = '-infinity'
    WHERE sound_id = ${lease.soundId} AND owner = ${lease.owner} AND epoch = ${lease.epoch}`.execute(db);
}

/**
 * Runs `work` in a transaction that first checks the lease and locks its row (FOR SHARE): a
 * takeover's UPDATE waits until this commits, so either the write lands before the takeover or it is
 * refused with SoundLeaseLostError — an old owner resumed after a pause cannot overwrite the new one's.
 * The lease's expiry is not checked here: an expired lease nobody took over is still this holder's.
 */
export function withSoundLease<T>(
  db: Db,
  lease: SoundLease,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return inTransaction(db, async (trx) => {
    const held = await trx
      .selectFrom('sound_leases')
      .select('epoch')
      .where('sound_id', '=', lease.soundId)
      .where('owner', '=', lease.owner)
      .where('epoch', '=', lease.epoch)
      .forShare()
      .executeTakeFirst();
    if (!held) throw new SoundLeaseLostError(lease.soundId);
    return work(trx);
  });
}
