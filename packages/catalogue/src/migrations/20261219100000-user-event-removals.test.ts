import { testService } from '@earshot/common/testing';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { addComment } from '../repositories/comments.ts';
import { createSound } from '../repositories/sounds.ts';
import { eventResume, latestUserEventPosition, readUserEvents } from '../repositories/user-events.ts';
import { createUser } from '../repositories/users.ts';
import { USER_EVENT_KINDS } from '../schema/database.ts';
import { testBackends, useRepositoryCatalogue } from '../testing/index.ts';
import { down, up } from './20261219100000-user-event-removals.ts';

const postgresUrl = await testService('postgres');

/**
 * Events removed before the removals were noted left no trace but a gap in the numbers: the
 * migration then makes every resume from an id of before it a possible miss, and otherwise none.
 */
describe.each(testBackends(postgresUrl))('the event removals migration on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);
  const migrateAgain = async () => {
    await down(db() as unknown as Kysely<unknown>);
    await up(db() as unknown as Kysely<unknown>);
  };

  it('notes nothing when no event was removed, and a possible miss for everyone when some were', async () => {
    const owner = await createUser(db(), { username: unique('owner') });
    const fan = await createUser(db(), { username: unique('fan') });
    const sound = await createSound(db(), {
      userId: owner.id,
      name: 'Bell',
      tags: [],
      license: 'Creative Commons 0',
      originalFilename: 'bell.wav',
      originalPath: unique('o/'),
    });
    const start = await latestUserEventPosition(db());
    for (const comment of ['a', 'b', 'c'])
      await addComment(db(), { soundId: sound.id, userId: fan.id, comment });
    const [first, second, third] = await readUserEvents(db(), { after: start, limit: 10, userId: owner.id });
    const resume = () =>
      eventResume(db(), { userId: owner.id, after: first.position, kinds: USER_EVENT_KINDS });

    await migrateAgain();
    expect(await resume()).toEqual({ unknown: false, removedThrough: null, oldestKept: second.position });

    // As the retention removed events before it noted them: gone without a note.
    await sql`delete from user_events where id = ${second.id}::bigint`.execute(db());
    await migrateAgain();
    const noted = await resume();
    expect(noted.unknown).toBe(false);
    expect(BigInt(noted.removedThrough?.seq ?? 0)).toBeGreaterThanOrEqual(BigInt(third.position.seq));
    expect(noted.oldestKept).toEqual(third.position);
  });
});
