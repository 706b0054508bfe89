import { testService } from '@earshot/common/testing';
import { describe, expect, it } from 'vitest';
import { testBackends } from '../testing/catalogue.ts';
import { useRepositoryCatalogue } from '../testing/repository-catalogue.ts';
import { setSimilarityVector } from './analysis.ts';
import {
  countLabelledSounds,
  getCategoryModel,
  listLabelledVectors,
  listUnlabelledVectors,
  saveCategoryModel,
  setEstimatedCategory,
} from './category-models.ts';
import { createSound, editSound } from './sounds.ts';
import { createUser } from './users.ts';

const postgresUrl = await testService('postgres');

describe.each(testBackends(postgresUrl))('category models on %s', (backend) => {
  const { db, unique } = useRepositoryCatalogue(backend, postgresUrl);
  // Each test its own space, so counts are its own.
  const space = () => unique('space_');

  async function newSound(vectorSpace: string, category?: { category: string; subcategory: string | null }) {
    const user = await createUser(db(), { username: unique('u') });
    const sound = await createSound(db(), {
      userId: user.id,
      name: unique('sound '),
      tags: ['rain'],
      license: 'Creative Commons 0',
      originalFilename: 'rain.wav',
      originalPath: `${unique('originals/')}.wav`,
      moderationState: 'ok',
      ...category,
    });
    await setSimilarityVector(db(), sound.id, vectorSpace, [sound.id, 1]);
    return sound.id;
  }
  const row = (id: number) =>
    db()
      .selectFrom('sounds')
      .select(['category', 'subcategory', 'category_code', 'category_is_user_provided'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('stores one model per space, the newest replacing the one before', async () => {
    const s = space();
    expect(await getCategoryModel(db(), s)).toBeUndefined();
    await saveCategoryModel(db(), s, { kind: 'softmax', n: 1 }, 5);
    await saveCategoryModel(db(), s, { kind: 'softmax', n: 2 }, 7);
    expect(await getCategoryModel(db(), s)).toMatchObject({
      model: { kind: 'softmax', n: 2 },
      labelledSounds: 7,
    });
  });

  it("learns from uploaders' categories only, with a vector in the space, not rejected", async () => {
    const s = space();
    const labelled = await newSound(s, { category: 'Music', subcategory: 'Solo percussion' });
    const topOnly = await newSound(s, { category: 'Music', subcategory: null });
    const unlabelled = await newSound(s);
    const rejected = await newSound(s, { category: 'Music', subcategory: 'Other' });
    await db()
      .updateTable('sounds')
      .set({ moderation_state: 'rejected' })
      .where('id', '=', rejected)
      .execute();
    await newSound(space(), { category: 'Speech', subcategory: 'Solo speech' });
    expect(await countLabelledSounds(db(), s)).toBe(2);
    expect(await listLabelledVectors(db(), s, 10)).toEqual([
      { soundId: labelled, label: 'm-sp', vector: [labelled, 1] },
      { soundId: topOnly, label: 'm', vector: [topOnly, 1] },
    ]);
    expect(await listUnlabelledVectors(db(), s, 0, 10)).toEqual([
      { id: unlabelled, vector: [unlabelled, 1] },
    ]);
    expect(await listUnlabelledVectors(db(), s, unlabelled, 10)).toEqual([]);
  });

  it('thins a label with more sounds than asked for evenly over its ids', async () => {
    const s = space();
    const music = [];
    for (let i = 0; i < 10; i++) music.push(await newSound(s, { category: 'Music', subcategory: 'Other' }));
    const speech = await newSound(s, { category: 'Speech', subcategory: 'Solo speech' });
    const kept = await listLabelledVectors(db(), s, 4);
    // Ranks 1, 4, 6, 9 of ten: the first row of each quarter.
    expect(kept.map((k) => k.soundId)).toEqual([music[0], music[3], music[5], music[8], speech]);
    expect(await listLabelledVectors(db(), s, 10)).toHaveLength(11);
  });

  it('sets and clears an estimate, marked as not user-provided, and never touches an uploader’s category', async () => {
    const s = space();
    const estimated = await newSound(s);
    expect(await setEstimatedCategory(db(), estimated, 'fx-a')).toBe(true);
    expect(await row(estimated)).toEqual({
      category: 'Sound effects',
      subcategory: 'Animals',
      category_code: 'fx-a',
      category_is_user_provided: false,
    });
    expect(await setEstimatedCategory(db(), estimated, 'fx-a')).toBe(false);
    expect(await setEstimatedCategory(db(), estimated, 'm')).toBe(true);
    expect(await row(estimated)).toMatchObject({ category: 'Music', subcategory: null, category_code: 'm' });
    expect(await setEstimatedCategory(db(), estimated, null)).toBe(true);
    expect(await row(estimated)).toMatchObject({ category: null, category_code: null });

    const given = await newSound(s, { category: 'Speech', subcategory: 'Solo speech' });
    expect(await setEstimatedCategory(db(), given, 'fx-a')).toBe(false);
    expect(await setEstimatedCategory(db(), given, null)).toBe(false);
    expect(await row(given)).toMatchObject({ category_code: 'sp-s', category_is_user_provided: true });

    // The uploader edits an estimated sound's category: from then on it is theirs.
    await editSound(db(), estimated, {
      category: 'Soundscapes',
      subcategory: 'Nature',
      categoryIsUserProvided: true,
    });
    expect(await setEstimatedCategory(db(), estimated, 'fx-a')).toBe(false);
    expect(await row(estimated)).toMatchObject({ category_code: 'ss-n', category_is_user_provided: true });
    await expect(setEstimatedCategory(db(), estimated, 'zz-q')).rejects.toThrow(
      /not a broad sound taxonomy code/,
    );
  });
});
