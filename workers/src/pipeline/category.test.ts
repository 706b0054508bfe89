import { getSimilarityVector } from '@earshot/catalogue';
import { testService } from '@earshot/common/testing';
import { CATEGORY_SPACE, estimateCategory, parseCategoryModel } from '@earshot/core';
import { realSampleFile } from '@earshot/fixtures';
import { SoundIntake } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import { type RunnerBackend, runnerBackends } from '../testing/runner-backends.ts';
import { dropQueue, uniquePrefix, waitFor } from '../testing/wait.ts';

const redisUrl = await testService('redis');
const postgresUrl = await testService('postgres');

const setups = runnerBackends('category', redisUrl, postgresUrl);

// Real CC0 recordings (fixtures/src/sample-categories.ts): kicks and ambient drones labelled by
// their uploaders, then sounds uploaded without a category.
const LABELLED: Array<[string, { category: string; subcategory: string }]> = [
  ['bd_808', { category: 'Instrument samples', subcategory: 'Percussion' }],
  ['bd_fat', { category: 'Instrument samples', subcategory: 'Percussion' }],
  ['bd_klub', { category: 'Instrument samples', subcategory: 'Percussion' }],
  ['ambi_soft_buzz', { category: 'Soundscapes', subcategory: 'Synthetic / Artificial' }],
  ['ambi_drone', { category: 'Soundscapes', subcategory: 'Synthetic / Artificial' }],
  ['ambi_choir', { category: 'Soundscapes', subcategory: 'Synthetic / Artificial' }],
];

describe.each(setups)('the automatic category with the %s', (_, redis, open, available) => {
  let backend: RunnerBackend;
  let service: JobRunnerService;
  let intake: SoundIntake;
  let uploader: number;
  const prefix = uniquePrefix('category');

  beforeAll(async () => {
    if (!available) return;
    backend = await open();
    service = createJobRunner({
      config: { dataDir: backend.dataDir, REDIS_URL: redis, WORKER_CONCURRENCY: 2 },
      logger: backend.logger,
      catalogue: backend.catalogue,
      runWorkers: true,
      queuePrefix: prefix,
    });
    await service.start();
    intake = new SoundIntake(backend.catalogue.db, service.storage);
    uploader = await backend.user('uploader');
  });

  afterAll(async () => {
    if (!available) return;
    await service.close(5_000);
    if (redis) await dropQueue(redis, prefix);
    await backend.dispose();
  });

  const db = () => backend.catalogue.db;
  const sound = (id: number) =>
    db()
      .selectFrom('sounds')
      .select(['processing_state', 'category', 'subcategory', 'category_code', 'category_is_user_provided'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const processed = (id: number) =>
    waitFor(
      async () => {
        const s = await sound(id);
        return s.processing_state === 'Processed' ? s : undefined;
      },
      { timeoutMs: 120_000, what: `sound ${id} to be processed` },
    );
  const modelTrainedOn = (labelled: number) =>
    waitFor(
      async () => {
        const row = await db().selectFrom('category_models').selectAll().executeTakeFirst();
        return row && row.labelled_sounds >= labelled ? row : undefined;
      },
      { timeoutMs: 60_000, what: `a category model trained on ${labelled} labelled sounds` },
    );
  const upload = async (name: string, category?: { category: string; subcategory: string }) => {
    const id = await intake.create({ userId: uploader, file: realSampleFile(name), ...category });
    await service.pipeline.submit(id);
    return id;
  };

  it.skipIf(!available)(
    'trains on the labelled sounds, then estimates or leaves empty, and never overwrites an uploader',
    async () => {
      // No labels yet: a sound without a category stays without one.
      const early = await upload('bd_haus');
      expect(await processed(early)).toMatchObject({ category: null, category_is_user_provided: false });

      const labelled = await Promise.all(LABELLED.map(([name, category]) => upload(name, category)));
      for (const id of labelled) await processed(id);
      const model = await modelTrainedOn(LABELLED.length);
      expect((model.model as { labels: string[] }).labels).toEqual(['is-p', 'ss-s']);
      // Training estimated the sound processed before any model existed.
      await waitFor(async () => (await sound(early)).category_code === 'is-p' || undefined, {
        timeoutMs: 30_000,
        what: 'the earlier sound to be estimated',
      });

      // A kick without a category gets the kicks' category, marked as estimated.
      expect(await processed(await upload('bd_zum'))).toEqual({
        processing_state: 'Processed',
        category: 'Instrument samples',
        subcategory: 'Percussion',
        category_code: 'is-p',
        category_is_user_provided: false,
      });
      // A tom, unlike both labels: it gets the model's best label only when the model is sure enough
      // (the threshold), else stays empty. Which of the two depends on the descriptors' exact values,
      // so the stored model itself says what to expect (services' tests hold each branch fixed).
      const tom = await upload('drum_tom_mid_hard');
      const tomRow = await processed(tom);
      const vector = await getSimilarityVector(db(), tom, CATEGORY_SPACE);
      const stored = await modelTrainedOn(LABELLED.length);
      const expected = vector && estimateCategory(parseCategoryModel(stored.model), vector);
      expect(tomRow).toMatchObject({
        category_code: expected ? expected.label : null,
        category_is_user_provided: false,
      });
      if (!expected) expect(tomRow).toMatchObject({ category: null, subcategory: null });

      // An uploader who calls a kick a soundscape keeps that, through processing and the retraining
      // the new label brings.
      const odd = await upload('bd_tek', { category: 'Soundscapes', subcategory: 'Synthetic / Artificial' });
      expect(await processed(odd)).toMatchObject({ category_code: 'ss-s', category_is_user_provided: true });
      await modelTrainedOn(LABELLED.length + 1);
      expect(await sound(odd)).toMatchObject({ category_code: 'ss-s', category_is_user_provided: true });
    },
    240_000,
  );
});
