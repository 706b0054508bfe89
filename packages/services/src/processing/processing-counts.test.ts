import { createSound, createUser } from '@earshot/catalogue';
import { openTestCatalogue, setProcessingState, type TestCatalogue } from '@earshot/catalogue/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessingCounts } from './processing-counts.ts';

describe('sounds by processing state (for /metrics)', () => {
  let test: TestCatalogue;
  const ids: number[] = [];
  beforeAll(async () => {
    test = await openTestCatalogue('pglite');
    const userId = (await createUser(test.catalogue.db, { username: 'counter' })).id;
    for (let n = 0; n < 3; n++) {
      const sound = await createSound(test.catalogue.db, {
        userId,
        name: `sound ${n}`,
        tags: [],
        license: 'Creative Commons 0',
        originalFilename: 'a.wav',
        originalPath: `a${n}.wav`,
      });
      ids.push(sound.id);
    }
    await setProcessingState(test.catalogue.db, ids[0], { state: 'Failed' });
  });
  afterAll(() => test?.cleanup());

  it('counts each state, and reuses the count until it is older than its maximum age', async () => {
    let now = 0;
    const counts = new ProcessingCounts(test.catalogue.db, 5_000, () => now);
    expect(await counts.byState()).toEqual({ Queued: 2, Failed: 1 });
    await setProcessingState(test.catalogue.db, ids[1], { state: 'Failed' });
    now = 4_999;
    expect(await counts.byState()).toEqual({ Queued: 2, Failed: 1 });
    now = 5_000;
    expect(await counts.byState()).toEqual({ Queued: 1, Failed: 2 });
  });
});
