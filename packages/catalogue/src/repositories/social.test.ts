import { testService } from '@earshot/common/testing';
import { describe, expect, it } from 'vitest';
import {
  setModerationState,
  setProcessingState,
  testBackends,
  useRepositoryCatalogue,
} from '../testing/index.ts';
import {
  bookmarkSound,
  listBookmarkCategories,
  listBookmarkedSounds,
  removeBookmark,
  UNCATEGORIZED,
} from './bookmarks.ts';
import { addComment, listComments } from './comments.ts';
import { listPackFiles, packFilePages, recordPackDownload, recordSoundDownload } from './downloads.ts';
import { findOrCreatePack, getPack } from './packs.ts';
import { AlreadyRatedError, getRating, rateSound } from './ratings.ts';
import { userRecordByName } from './records.ts';
import { createSound, getSound } from './sounds.ts';
import { createUser, userCounts } from './users.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('social repositories on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);

  async function publicSound(userId: number, packId: number | null = null) {
    const sound = await createSound(db(), {
      userId,
      packId,
      name: unique('s'),
      tags: ['a', 'b', 'c'],
      license: 'Attribution',
      originalFilename: 'x.wav',
      originalPath: 'x.wav',
    });
    await setProcessingState(db(), sound.id, { state: 'Processed' });
    await setModerationState(db(), sound.id, 'ok', null);
    return sound;
  }

  it('rates once per user on the 0–5 scale and keeps the average and count', async () => {
    const owner = await createUser(db(), { username: unique('owner') });
    const sound = await publicSound(owner.id);
    const raters = await Promise.all([5, 4, 0].map(() => createUser(db(), { username: unique('rater') })));
    await rateSound(db(), { soundId: sound.id, userId: raters[0].id, rating: 5 });
    await rateSound(db(), { soundId: sound.id, userId: raters[1].id, rating: 4 });
    await rateSound(db(), { soundId: sound.id, userId: raters[2].id, rating: 0 });
    expect(await getSound(db(), sound.id)).toMatchObject({ num_ratings: 3, avg_rating: 3 });
    await expect(
      rateSound(db(), { soundId: sound.id, userId: raters[0].id, rating: 1 }),
    ).rejects.toBeInstanceOf(AlreadyRatedError);
    await expect(
      rateSound(db(), { soundId: sound.id, userId: raters[0].id, rating: 1 }),
    ).rejects.toMatchObject({ status: 409 });
    expect(await getRating(db(), sound.id, raters[0].id)).toBe(5);
    expect(await getSound(db(), sound.id)).toMatchObject({ num_ratings: 3, avg_rating: 3 });
    expect(() => rateSound(db(), { soundId: sound.id, userId: owner.id, rating: 6 })).toThrow(RangeError);
    expect(() => rateSound(db(), { soundId: sound.id, userId: owner.id, rating: 2.5 })).toThrow(RangeError);
  });

  it('counts only one of two simultaneous ratings by the same user', async () => {
    const owner = await createUser(db(), { username: unique('owner') });
    const sound = await publicSound(owner.id);
    const rater = await createUser(db(), { username: unique('rater') });
    const results = await Promise.allSettled(
      [3, 4].map((rating) => rateSound(db(), { soundId: sound.id, userId: rater.id, rating })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await getSound(db(), sound.id))?.num_ratings).toBe(1);
  });

  it('lists comments newest first with their authors and counts them on the sound and the commenter', async () => {
    const owner = await createUser(db(), { username: unique('owner') });
    const fan = await createUser(db(), { username: unique('fan') });
    const sound = await publicSound(owner.id);
    for (const text of ['first', 'second', 'third'])
      await addComment(db(), { soundId: sound.id, userId: fan.id, comment: text });
    await addComment(db(), { soundId: sound.id, userId: owner.id, comment: 'thanks' });
    const page = await listComments(db(), sound.id, { limit: 2, offset: 0 });
    expect(page.count).toBe(4);
    expect(page.items.map((c) => [c.username, c.comment])).toEqual([
      [owner.username, 'thanks'],
      [fan.username, 'third'],
    ]);
    expect((await getSound(db(), sound.id))?.num_comments).toBe(4);
    // The contract's num_comments of a user: comments on other people's sounds.
    expect((await userCounts(db(), fan.id)).num_comments).toBe(3);
    expect((await userCounts(db(), owner.id)).num_comments).toBe(0);
    // The API's user record counts by the same rule.
    expect((await userRecordByName(db(), fan.username))?.num_comments).toBe(3);
    expect((await userRecordByName(db(), owner.username))?.num_comments).toBe(0);
  });

  it('bookmarks into named categories created on first use, and uncategorized as category 0', async () => {
    const owner = await createUser(db(), { username: unique('owner') });
    const user = await createUser(db(), { username: unique('collector') });
    const [a, b, c] = [await publicSound(owner.id), await publicSound(owner.id), await publicSound(owner.id)];
    await bookmarkSound(db(), { userId: user.id, soundId: a.id, name: a.name });
    await bookmarkSound(db(), { userId: user.id, soundId: b.id, name: 'my drum', category: 'Drums' });
    await bookmarkSound(db(), { userId: user.id, soundId: c.id, name: c.name, category: 'Drums' });
    const categories = await listBookmarkCategories(db(), user.id);
    expect(categories.map((cat) => [cat.id === UNCATEGORIZED ? 0 : 'id', cat.name, cat.num_sounds])).toEqual([
      [0, 'Uncategorized', 1],
      ['id', 'Drums', 2],
    ]);
    const drums = categories[1].id;
    const inDrums = await listBookmarkedSounds(db(), user.id, drums, { limit: 10, offset: 0 });
    expect(inDrums.count).toBe(2);
    expect(inDrums.items.map((s) => [s.id, s.bookmark_name])).toEqual([
      [c.id, c.name],
      [b.id, 'my drum'],
    ]);
    expect(
      (await listBookmarkedSounds(db(), user.id, UNCATEGORIZED, { limit: 10, offset: 0 })).items.map(
        (s) => s.id,
      ),
    ).toEqual([a.id]);

    // Bookmarking again moves the bookmark; removing it empties the uncategorized pseudo-category.
    await bookmarkSound(db(), { userId: user.id, soundId: a.id, name: 'moved', category: 'Drums' });
    expect((await listBookmarkCategories(db(), user.id)).map((cat) => [cat.name, cat.num_sounds])).toEqual([
      ['Drums', 3],
    ]);
    await removeBookmark(db(), user.id, a.id);
    expect((await listBookmarkCategories(db(), user.id)).map((cat) => [cat.name, cat.num_sounds])).toEqual([
      ['Drums', 2],
    ]);
  });

  it('counts sound and pack downloads', async () => {
    const owner = await createUser(db(), { username: unique('owner') });
    const pack = await findOrCreatePack(db(), owner.id, 'p');
    const sound = await publicSound(owner.id, pack.id);
    await Promise.all([1, 2, 3].map(() => recordSoundDownload(db(), sound.id, owner.id)));
    await recordSoundDownload(db(), sound.id, null);
    await recordPackDownload(db(), pack.id, owner.id);
    expect((await getSound(db(), sound.id))?.num_downloads).toBe(4);
    expect((await getPack(db(), pack.id))?.num_downloads).toBe(1);
    const logged = await db()
      .selectFrom('downloads')
      .select(['sound_id', 'pack_id'])
      .where('user_id', '=', owner.id)
      .execute();
    expect(logged).toHaveLength(4);
  });

  it('lists the public sounds of a pack with their originals, in id order, for its zip', async () => {
    const owner = await createUser(db(), { username: unique('owner') });
    const pack = await findOrCreatePack(db(), owner.id, 'zip me');
    const first = await publicSound(owner.id, pack.id);
    const second = await publicSound(owner.id, pack.id);
    const hidden = await publicSound(owner.id, pack.id);
    await setModerationState(db(), hidden.id, 'pending_moderation', null);
    const failed = await publicSound(owner.id, pack.id);
    await setProcessingState(db(), failed.id, { state: 'Failed' });
    await publicSound(owner.id, null);
    expect(await listPackFiles(db(), pack.id)).toEqual(
      [first, second].map((s) => ({
        id: s.id,
        name: s.name,
        username: owner.username,
        license: 'Attribution',
        original_filename: 'x.wav',
        original_path: 'x.wav',
        crc32: null,
      })),
    );
    expect(await listPackFiles(db(), 2 ** 31 - 1)).toEqual([]);
  });

  it('pages the same rows by id (a small first page, then larger ones), skipping sounds that are not public', async () => {
    const owner = await createUser(db(), { username: unique('owner') });
    const pack = await findOrCreatePack(db(), owner.id, 'paged');
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) {
      const sound = await publicSound(owner.id, pack.id);
      if (i === 2) await setModerationState(db(), sound.id, 'pending_moderation', null);
      else ids.push(sound.id);
    }
    const pages: number[][] = [];
    for await (const page of packFilePages(db(), pack.id, { first: 2, next: 3 }))
      pages.push(page.map((f) => f.id));
    expect(pages).toEqual([ids.slice(0, 2), ids.slice(2, 5), ids.slice(5, 7)]);
    expect(pages.flat()).toEqual((await listPackFiles(db(), pack.id)).map((f) => f.id));
    // A last page that is exactly full is followed by one empty read, not by an empty page.
    const exact: number[][] = [];
    for await (const page of packFilePages(db(), pack.id, { first: 1, next: 6 }))
      exact.push(page.map((f) => f.id));
    expect(exact).toEqual([ids.slice(0, 1), ids.slice(1, 7)]);
    const none: unknown[] = [];
    for await (const page of packFilePages(db(), 2 ** 31 - 1)) none.push(page);
    expect(none).toEqual([]);
  });
});
