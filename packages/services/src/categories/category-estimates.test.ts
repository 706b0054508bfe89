import { createSound, createUser, getCategoryModel, setSimilarityVector } from '@earshot/catalogue';
import { openTestCatalogue, type TestCatalogue } from '@earshot/catalogue/testing';
import { CATEGORY_SPACE } from '@earshot/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateSoundCategory, retrainCategoryModel } from './category-estimates.ts';

// Vectors in the category space pointing two ways: "kicks" along the first axis, "drones" along
// the second, a little apart from each other; and one half way, which no model can be sure of.
const DIMENSION = 100;
function vector(first: number, second: number, jitter = 0): number[] {
  const v = new Array<number>(DIMENSION).fill(0.01);
  v[0] = first;
  v[1] = second;
  v[2 + (Math.round(jitter * 10) % 90)] += jitter;
  return v;
}
const KICKS = { category: 'Instrument samples', subcategory: 'Percussion' };
const DRONES = { category: 'Soundscapes', subcategory: 'Synthetic / Artificial' };

describe('retrainCategoryModel and estimateSoundCategory', () => {
  let test: TestCatalogue;
  let userId: number;
  let n = 0;
  beforeAll(async () => {
    test = await openTestCatalogue('pglite');
    userId = (await createUser(test.catalogue.db, { username: 'uploader' })).id;
  });
  afterAll(() => test?.cleanup());

  const db = () => test.catalogue.db;
  async function sound(v: number[], category?: { category: string; subcategory: string }) {
    const { id } = await createSound(db(), {
      userId,
      name: `sound ${++n}`,
      tags: [],
      license: 'Creative Commons 0',
      originalFilename: 'a.wav',
      originalPath: `a${n}.wav`,
      ...category,
    });
    await setSimilarityVector(db(), id, CATEGORY_SPACE, v);
    return id;
  }
  const category = (id: number) =>
    db()
      .selectFrom('sounds')
      .select(['category_code', 'category_is_user_provided'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('trains only once two labels have three sounds each, and estimates what it can', async () => {
    const unlabelled = await sound(vector(1, 0.1, 0.5));
    expect(await estimateSoundCategory(db(), unlabelled, vector(1, 0.1))).toBeUndefined();
    for (const j of [0.1, 0.2, 0.3]) await sound(vector(1, 0, j), KICKS);
    for (const j of [0.1, 0.2]) await sound(vector(0, 1, j), DRONES);
    expect(await retrainCategoryModel(db())).toMatchObject({
      trained: false,
      labelledSounds: 5,
      notTrained: 'too few labels',
    });
    expect(await getCategoryModel(db(), CATEGORY_SPACE)).toBeUndefined();

    await sound(vector(0, 1, 0.3), DRONES);
    expect(await retrainCategoryModel(db())).toEqual({
      trained: true,
      labelledSounds: 6,
      labels: ['is-p', 'ss-s'],
      changed: 1,
    });
    // The sound that was there before the model got its estimate with the training.
    expect(await category(unlabelled)).toEqual({ category_code: 'is-p', category_is_user_provided: false });
    expect(await estimateSoundCategory(db(), unlabelled, vector(0.05, 1))).toBe('ss-s');
    expect(await estimateSoundCategory(db(), unlabelled, vector(0.5, 0.5))).toBeNull();
    expect(await category(unlabelled)).toEqual({ category_code: null, category_is_user_provided: false });
  });

  it('retrains when labels grew by a tenth, or when forced; never estimates over an uploader', async () => {
    expect(await retrainCategoryModel(db())).toMatchObject({
      trained: false,
      labelledSounds: 6,
      notTrained: 'not due',
    });
    expect(await retrainCategoryModel(db(), { force: true })).toMatchObject({
      trained: true,
      labelledSounds: 6,
    });
    const given = await sound(vector(1, 0, 0.4), DRONES);
    expect(await retrainCategoryModel(db())).toMatchObject({ trained: true, labelledSounds: 7 });
    expect(await estimateSoundCategory(db(), given, vector(1, 0))).toBe('is-p');
    expect(await category(given)).toEqual({ category_code: 'ss-s', category_is_user_provided: true });
  });
});
