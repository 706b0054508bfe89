import { sql } from 'kysely';
import { ConflictError, type Db, inTransaction } from './shared.ts';

export class AlreadyRatedError extends ConflictError {
  constructor(soundId: number) {
    super(`You have already rated sound ${soundId}.`);
  }
}

/**
 * Records a user's 0–5 rating (once per user and sound: a second gives AlreadyRatedError, the
 * contract's 409) and recomputes the sound's average and count from the ratings themselves.
 */
export function rateSound(db: Db, input: { soundId: number; userId: number; rating: number }): Promise<void> {
  if (!Number.isInteger(input.rating) || input.rating < 0 || input.rating > 5) {
    throw new RangeError(`rating must be an integer from 0 to 5, got ${input.rating}`);
  }
  return inTransaction(db, async (trx) => {
    const inserted = await trx
      .insertInto('ratings')
      .values({ sound_id: input.soundId, user_id: input.userId, rating: input.rating })
      .onConflict((oc) => oc.columns(['sound_id', 'user_id']).doNothing())
      .returning('rating')
      .executeTakeFirst();
    if (!inserted) throw new AlreadyRatedError(input.soundId);
    await trx
      .updateTable('sounds')
      .set({
        num_ratings: sql<number>`(select count(*) from ratings where sound_id = ${input.soundId})`,
        avg_rating: sql<number>`(select coalesce(avg(rating), 0) from ratings where sound_id = ${input.soundId})`,
      })
      .where('id', '=', input.soundId)
      .execute();
  });
}

export async function getRating(db: Db, soundId: number, userId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('ratings')
    .select('rating')
    .where('sound_id', '=', soundId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.rating;
}
