import { testService } from '@earshot/common/testing';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { USER_EVENT_KINDS } from '../schema/database.ts';
import {
  setModerationState,
  setProcessingState,
  testBackends,
  useRepositoryCatalogue,
} from '../testing/index.ts';
import { bookmarkSound } from './bookmarks.ts';
import { addComment } from './comments.ts';
import { rateSound } from './ratings.ts';
import { createSound } from './sounds.ts';
import {
  decodeEventPosition,
  EVENTS_START,
  encodeEventPosition,
  eventResume,
  latestUserEventPosition,
  pruneUserEvents,
  readUserEvents,
} from './user-events.ts';
import { createUser } from './users.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))("the events of a user's sounds on %s", (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  async function setUp() {
    const owner = await createUser(db(), { username: unique('owner') });
    const fan = await createUser(db(), { username: unique('fan') });
    const sound = await createSound(db(), {
      userId: owner.id,
      name: 'Gate creak',
      tags: [],
      license: 'Creative Commons 0',
      originalFilename: 'gate.wav',
      originalPath: unique('o/'),
      moderationState: 'pending_moderation',
    });
    return { owner: owner.id, fan, sound: sound.id };
  }

  it('writes one event per change of what an owner hears of, with what the change says', async () => {
    const { owner, fan, sound } = await setUp();
    const start = await latestUserEventPosition(db());
    await setProcessingState(db(), sound, { state: 'Processing', progress: 0.5 });
    await setProcessingState(db(), sound, { state: 'Failed', error: 'bad header' });
    await setProcessingState(db(), sound, { state: 'Processed' });
    await setProcessingState(db(), sound, { state: 'Processed', progress: 1 });
    await setModerationState(db(), sound, 'rejected', fan.id);
    await setModerationState(db(), sound, 'ok', fan.id);
    await addComment(db(), { soundId: sound, userId: fan.id, comment: 'creepy' });
    await rateSound(db(), { soundId: sound, userId: fan.id, rating: 3 });
    await bookmarkSound(db(), { userId: fan.id, soundId: sound, name: 'gate' });
    // A bookmark moved to a category is no new event.
    await bookmarkSound(db(), { userId: fan.id, soundId: sound, name: 'gate', category: 'doors' });
    const events = await readUserEvents(db(), { after: start, limit: 100, userId: owner });
    expect(events.map((e) => e.kind)).toEqual([
      'processing_failed',
      'processed',
      'rejected',
      'approved',
      'commented',
      'rated',
      'bookmarked',
    ]);
    expect(events.every((e) => e.soundId === sound && e.userId === owner)).toBe(true);
    expect(events[0].data).toEqual({ sound_name: 'Gate creak', error: 'bad header' });
    expect(events[4].data).toMatchObject({
      sound_name: 'Gate creak',
      comment: 'creepy',
      username: fan.username,
    });
    expect(events[5].data).toMatchObject({ rating: 3, username: fan.username });
    // The fan hears nothing of the owner's sound; the kinds filter keeps only those asked.
    expect(await readUserEvents(db(), { after: start, limit: 100, userId: fan.id })).toEqual([]);
    const rated = await readUserEvents(db(), { after: start, limit: 100, userId: owner, kinds: ['rated'] });
    expect(rated.map((e) => e.kind)).toEqual(['rated']);
    // Positions read back, and in order.
    const last = events[events.length - 1].position;
    expect(decodeEventPosition(encodeEventPosition(last), 'x')).toEqual(last);
    expect(await latestUserEventPosition(db())).toEqual(last);
    expect(() => decodeEventPosition('bogus', 'Last-Event-ID')).toThrow(/Last-Event-ID: not an event id/);
  });

  it('notes what the retention removed, so a resume before it is told, and knows the ids it wrote', async () => {
    const { owner, fan, sound } = await setUp();
    const before = await latestUserEventPosition(db());
    for (const words of ['one', 'two', 'three', 'four'])
      await addComment(db(), { soundId: sound, userId: fan.id, comment: words });
    await rateSound(db(), { soundId: sound, userId: fan.id, rating: 4 });
    const [c1, c2, c3, c4, rated] = await readUserEvents(db(), { after: before, limit: 10, userId: owner });
    expect(rated.kind).toBe('rated');
    await sql`update user_events set created = now() - interval '10 days'
      where id in (${c1.id}::bigint, ${c2.id}::bigint)`.execute(db());
    expect(await pruneUserEvents(db(), new Date(Date.now() - 5 * 86_400_000))).toBe(2);
    const all = USER_EVENT_KINDS;
    const resume = (after: typeof before, kinds: readonly (typeof all)[number][] = all, userId = owner) =>
      eventResume(db(), { userId, after, kinds });

    // From before the removed events: they were missed; the stream goes on from the oldest kept.
    expect(await resume(before)).toEqual({
      unknown: false,
      removedThrough: c2.position,
      oldestKept: c3.position,
    });
    // From a removed event's own id (the client saw it before it went): the next one was missed.
    expect(await resume(c1.position)).toEqual({
      unknown: false,
      removedThrough: c2.position,
      oldestKept: c3.position,
    });
    // From the last removed event, or a later one: nothing missed.
    expect(await resume(c2.position)).toEqual({
      unknown: false,
      removedThrough: null,
      oldestKept: c3.position,
    });
    expect(await resume(c4.position)).toMatchObject({ removedThrough: null, oldestKept: rated.position });
    // A stream of other kinds missed none of them; another user missed nothing of theirs.
    expect(await resume(before, ['rated'])).toMatchObject({
      removedThrough: null,
      oldestKept: rated.position,
    });
    expect(await resume(before, all, fan.id)).toEqual({
      unknown: false,
      removedThrough: null,
      oldestKept: null,
    });
    // The start of everything is known; an id no event had (or one after the latest) is not.
    expect(await resume(EVENTS_START)).toMatchObject({ unknown: false, removedThrough: c2.position });
    const latest = await latestUserEventPosition(db());
    expect(await resume({ seq: String(BigInt(latest.seq) + 5n), id: latest.id })).toMatchObject({
      unknown: true,
    });
    expect(await resume({ seq: c3.position.seq, id: String(BigInt(c4.id) + 1000n) })).toMatchObject({
      unknown: true,
    });

    // A later prune moves the note forward, an earlier one never back.
    await sql`update user_events set created = now() - interval '10 days' where id = ${c3.id}::bigint`.execute(
      db(),
    );
    expect(await pruneUserEvents(db(), new Date(Date.now() - 5 * 86_400_000))).toBe(1);
    expect(await resume(c2.position)).toMatchObject({ removedThrough: c3.position, oldestKept: c4.position });
    expect(await pruneUserEvents(db(), new Date(Date.now() - 5 * 86_400_000))).toBe(0);
    expect(await resume(before)).toMatchObject({ removedThrough: c3.position });
  });
});

describe.skipIf(!postgresUrl)('events under concurrent writers (PostgreSQL server)', () => {
  const { db, unique } = useRepositoryCatalogue('postgres', postgresUrl);

  it('never lets a reader pass an event whose transaction commits later', async () => {
    const owner = await createUser(db(), { username: unique('owner') });
    const fan = await createUser(db(), { username: unique('fan') });
    // Two sounds: a comment updates its sound's row (the count), where the two would wait for each other.
    const sounds: number[] = [];
    for (const name of ['slow', 'quick'])
      sounds.push(
        (
          await createSound(db(), {
            userId: owner.id,
            name,
            tags: [],
            license: 'Creative Commons 0',
            originalFilename: 'x.wav',
            originalPath: unique('o/'),
            moderationState: 'ok',
          })
        ).id,
      );
    const start = await latestUserEventPosition(db());
    let release!: () => void;
    let written!: () => void;
    const wroteSlow = new Promise<void>((resolve) => {
      written = resolve;
    });
    // The slow transaction writes its event first (a lower id) and commits last.
    const slow = db()
      .transaction()
      .execute(async (trx) => {
        await addComment(trx, { soundId: sounds[0], userId: fan.id, comment: 'slow' });
        written();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      });
    await wroteSlow;
    await addComment(db(), { soundId: sounds[1], userId: fan.id, comment: 'quick' });
    const quick = await readUserEvents(db(), { after: start, limit: 10, userId: owner.id });
    expect(quick.map((e) => e.data.comment)).toEqual(['quick']);
    release();
    await slow;
    const later = await readUserEvents(db(), { after: quick[0].position, limit: 10, userId: owner.id });
    expect(later.map((e) => e.data.comment)).toEqual(['slow']);
    expect(BigInt(later[0].id)).toBeLessThan(BigInt(quick[0].id));
  });
});
