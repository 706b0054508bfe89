import { createSound, createUser, getProcessingRecord, setAnalysis, startStage } from '@earshot/catalogue';
import { openTestCatalogue, setProcessingState, type TestCatalogue } from '@earshot/catalogue/testing';
import { CORE_ANALYZER, EXTRACTOR_VERSION, type VariantATree, type VariantB } from '@earshot/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPendingModeration, moderate } from '../moderation/moderation.ts';
import { recordingQueue } from '../testing/processing-queue.ts';
import { AlreadyProcessingError, reprocess, reprocessFailed, reprocessStale } from './reprocess.ts';

describe('reprocessing and moderation use cases', () => {
  let test: TestCatalogue;
  let userId: number;
  let n = 0;
  beforeAll(async () => {
    test = await openTestCatalogue('pglite');
    userId = (await createUser(test.catalogue.db, { username: 'uploader' })).id;
  });
  afterAll(() => test?.cleanup());

  const newSound = async () =>
    (
      await createSound(test.catalogue.db, {
        userId,
        name: `sound ${++n}`,
        tags: [],
        license: 'Creative Commons 0',
        originalFilename: 'a.wav',
        originalPath: `a${n}.wav`,
      })
    ).id;

  it('puts a failed sound back to Queued before it is submitted, and every failed one with reprocessFailed', async () => {
    const db = test.catalogue.db;
    const [a, b, c] = [await newSound(), await newSound(), await newSound()];
    await setProcessingState(db, a, { state: 'Failed', error: 'bad' });
    await setProcessingState(db, b, { state: 'Failed', error: 'bad' });
    await setProcessingState(db, c, { state: 'Processed' });
    const { queue, submitted } = recordingQueue();
    await reprocess(db, queue, c);
    expect(submitted).toEqual([c]);
    expect(await getProcessingRecord(db, c)).toMatchObject({ state: 'Queued', error: null, attempts: 0 });
    expect(await reprocessFailed(db, queue)).toEqual([a, b]);
    expect(submitted).toEqual([c, a, b]);
    expect((await getProcessingRecord(db, a))?.state).toBe('Queued');
  });

  it("reprocesses the sounds an earlier version of the core's analysis described, and only those", async () => {
    const db = test.catalogue.db;
    const analysed = async (extractor: string) => {
      const id = await newSound();
      await setProcessingState(db, id, { state: 'Processed' });
      const analysisA = { metadata: { version: { extractor } } } as unknown as VariantATree;
      await setAnalysis(db, id, {
        values: {},
        analysisB: {} as VariantB,
        analysisA,
        analyzer: CORE_ANALYZER,
      });
      return id;
    };
    const current = await analysed(EXTRACTOR_VERSION);
    const older = await analysed('earshot-descriptors 1');
    const { queue, submitted } = recordingQueue();
    expect(await reprocessStale(db, queue)).toEqual([older]);
    expect(submitted).toEqual([older]);
    expect((await getProcessingRecord(db, older))?.state).toBe('Queued');
    expect((await getProcessingRecord(db, current))?.state).toBe('Processed');
  });

  it('refuses a sound whose job is waiting or running, and one that does not exist', async () => {
    const db = test.catalogue.db;
    const id = await newSound();
    await startStage(db, id, { stage: 'media', progress: 0.1, attempts: 1 });
    const { queue, submitted } = recordingQueue(new Set([id]));
    await expect(reprocess(db, queue, id)).rejects.toBeInstanceOf(AlreadyProcessingError);
    await expect(reprocess(db, queue, 999_999)).rejects.toMatchObject({ status: 404 });
    expect(submitted).toEqual([]);
    // A sound stuck in Processing whose job the queue lost is taken.
    const { queue: idle } = recordingQueue();
    await reprocess(db, idle, id);
    expect((await getProcessingRecord(db, id))?.state).toBe('Queued');
  });

  it('lists sounds pending moderation oldest first and approves only those', async () => {
    const db = test.catalogue.db;
    const [x, y] = [await newSound(), await newSound()];
    const pending = (await listPendingModeration(db, 1000)).map((e) => e.id);
    expect(pending.indexOf(x)).toBeLessThan(pending.indexOf(y));
    expect(await moderate(db, [x], 'approve')).toEqual([x]);
    expect(await moderate(db, [x, y], 'reject')).toEqual([y]);
    expect((await listPendingModeration(db, 1000)).map((e) => e.id)).not.toContain(x);
  });
});
