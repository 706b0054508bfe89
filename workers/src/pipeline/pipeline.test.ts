import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { testService } from '@earshot/common/testing';
import { makeTempDir, synthChannels } from '@earshot/core/testing';
import { fixture } from '@earshot/fixtures';
import { reprocessFailed, SoundIntake } from '@earshot/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner, type JobRunnerService } from '../job-runner.ts';
import { type PipelineTestEnv, pipelineTestEnv } from '../testing/pipeline-env.ts';
import { dropQueue, uniquePrefix, waitFor } from '../testing/wait.ts';

const redisUrl = await testService('redis');

const runners: Array<[string, string | undefined, boolean]> = [
  ['in-process', undefined, true],
  ['bullmq', redisUrl, !!redisUrl],
];

describe.each(runners)('the pipeline with the %s runner', (kind, redis, available) => {
  let env: PipelineTestEnv;
  let service: JobRunnerService;
  let intake: SoundIntake;
  let uploader: number;
  let trusted: number;
  const prefix = uniquePrefix(`pipeline-${kind}`);

  beforeAll(async () => {
    if (!available) return;
    env = await pipelineTestEnv(`pipeline-${kind}`);
    service = createJobRunner({
      config: { dataDir: env.dataDir, REDIS_URL: redis, WORKER_CONCURRENCY: 2 },
      logger: env.logger,
      catalogue: env.catalogue,
      runWorkers: true,
      queuePrefix: prefix,
    });
    await service.start();
    intake = new SoundIntake(env.catalogue.db, service.storage);
    uploader = await env.user('uploader');
    trusted = await env.user('trusted-uploader', { trusted: true });
  });

  afterAll(async () => {
    if (!available) return;
    await service.close(5_000);
    if (redis) await dropQueue(redis, prefix);
    await env.dispose();
  });

  const sound = (id: number) =>
    env.catalogue.db.selectFrom('sounds').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const settled = (id: number) =>
    waitFor(
      async () => {
        const s = await sound(id);
        return s.processing_state === 'Processed' || s.processing_state === 'Failed' ? s : undefined;
      },
      { timeoutMs: 90_000, what: `sound ${id} to finish processing` },
    );

  it.skipIf(!available)(
    'takes an upload through every stage to pending moderation, then visible',
    async () => {
      const id = await intake.create({ userId: uploader, file: fixture('sine-a4'), tags: ['Sine', 'tone'] });
      await service.pipeline.submit(id);
      const done = await settled(id);

      expect(done.processing_state).toBe('Processed');
      expect(done.processing_error).toBeNull();
      expect(done.processing_progress).toBe(1);
      expect(done.moderation_state).toBe('pending_moderation');
      expect(done.type).toBe('wav');
      expect(done.samplerate).toBe(44100);
      expect(done.duration).toBeCloseTo(2, 2);
      for (const key of [
        'preview-hq-mp3',
        'preview-lq-mp3',
        'preview-hq-ogg',
        'preview-lq-ogg',
        'waveform_m',
        'waveform_l',
        'spectral_m',
        'spectral_l',
        'peaks',
        // The key the file resource looks up (FileKind), as for the frames.
        'analysis_stats',
        'analysis_frames',
      ]) {
        const rel = done.media_paths[key];
        expect(rel, key).toBeTruthy();
        expect((await fs.stat(path.join(env.dataDir, rel))).size, key).toBeGreaterThan(0);
      }
      const descriptors = await env.catalogue.db
        .selectFrom('sound_descriptors')
        .select('analysis_a')
        .where('sound_id', '=', id)
        .executeTakeFirst();
      expect(descriptors?.analysis_a).toBeTruthy();
      // The catalogue's filterable columns hold the analysis: a 2 s file lasts about 2 s.
      const { duration_effective } = await env.catalogue.db
        .selectFrom('sound_descriptors')
        .select('duration_effective')
        .where('sound_id', '=', id)
        .executeTakeFirstOrThrow();
      expect(duration_effective).toBeGreaterThan(1.5);
      expect(duration_effective).toBeLessThan(2.5);
      const vectors = await env.catalogue.db
        .selectFrom('sound_similarity_vectors')
        .select(['space', 'dims'])
        .where('sound_id', '=', id)
        .execute();
      expect(vectors).toEqual([{ space: 'freesound_classic', dims: 100 }]);
      // No staging leftovers next to the outputs.
      expect((await fs.readdir(service.storage.soundDir(id))).filter((n) => n.startsWith('.'))).toEqual([]);
      // Nor what the stages handed each other (the probe, the decoded signal).
      expect(await fs.readdir(service.storage.soundDir(id))).not.toContain('work');

      await env.catalogue.db
        .updateTable('sounds')
        .set({ moderation_state: 'ok' })
        .where('id', '=', id)
        .execute();
      expect((await sound(id)).moderation_state).toBe('ok');
    },
  );

  it.skipIf(!available)("keeps an uploader's category with its code through processing", async () => {
    const id = await intake.create({
      userId: uploader,
      file: fixture('sine-fs3'),
      category: 'Sound effects',
      subcategory: 'Animals',
    });
    await service.pipeline.submit(id);
    const done = await settled(id);
    expect(done).toMatchObject({
      processing_state: 'Processed',
      category: 'Sound effects',
      subcategory: 'Animals',
      category_code: 'fx-a',
      category_is_user_provided: true,
    });
  });

  it.skipIf(!available)("approves a trusted uploader's sound without moderation", async () => {
    const id = await intake.create({ userId: trusted, file: fixture('sine-c4') });
    await service.pipeline.submit(id);
    const done = await settled(id);
    expect(done.processing_state).toBe('Processed');
    expect(done.moderation_state).toBe('ok');
  });

  it.skipIf(!available)(
    'fails a corrupt upload with a readable reason and goes on with the next sound',
    async () => {
      const bad = await intake.create({ userId: uploader, file: fixture('bad-random') });
      const good = await intake.create({ userId: uploader, file: fixture('fmt-flac-16') });
      await service.pipeline.submit(bad);
      await service.pipeline.submit(good);

      const failed = await settled(bad);
      expect(failed.processing_state).toBe('Failed');
      expect(failed.processing_stage).toBe('probe');
      expect(failed.processing_error?.split('\n')[0]).toBe(
        'The file is damaged or incomplete and cannot be decoded.',
      );
      expect(failed.processing_attempts).toBe(1);
      expect((await settled(good)).processing_state).toBe('Processed');
    },
  );

  it.skipIf(!available)('removes the work/ folder of a sound that failed for good (issue 31)', async () => {
    // Undecodable bytes of its own (the other tests' files are in the catalogue already).
    const bad = path.join(makeTempDir('earshot-bad-'), path.basename(fixture('bad-random')));
    await fs.writeFile(bad, randomBytes(64 * 1024));
    const id = await intake.create({ userId: uploader, file: bad });
    // What an earlier run of the sound left for its later stages (a decoded signal, its probe).
    const work = path.dirname(service.storage.workFile(id, 'x'));
    await fs.mkdir(work, { recursive: true });
    await fs.writeFile(service.storage.workFile(id, 'signal.f32'), Buffer.alloc(1024 * 1024));
    await service.pipeline.submit(id);
    expect((await settled(id)).processing_state).toBe('Failed');
    await expect(fs.stat(work)).rejects.toThrow(/ENOENT/);
  });

  it.skipIf(!available)('fails a 64-channel WAV at probe, once, saying why (issue 19)', async () => {
    const wide = synthChannels(path.join(makeTempDir('earshot-wide-'), 'wide.wav'), 64, 0.3);
    const id = await intake.create({ userId: uploader, file: wide });
    await service.pipeline.submit(id);
    const failed = await settled(id);
    expect(failed).toMatchObject({
      processing_state: 'Failed',
      processing_stage: 'probe',
      processing_attempts: 1,
    });
    expect(failed.processing_error?.split('\n')[0]).toBe(
      'The file has more audio channels than we can turn into previews. It has 64; at most 24 are accepted.',
    );
  });

  it.skipIf(!available)('reprocesses a failed sound without a new upload', async () => {
    const id = await intake.create({ userId: uploader, file: fixture('bad-empty') });
    await service.pipeline.submit(id);
    expect((await settled(id)).processing_state).toBe('Failed');
    expect((await sound(id)).processing_error).toBe('The file is empty.');

    // The uploader's file is replaced (say, restored from a backup); the same sound is processed again.
    const original = path.join(env.dataDir, (await sound(id)).original_path);
    await fs.copyFile(fixture('sine-c3'), original);
    expect(await reprocessFailed(env.catalogue.db, service.pipeline)).toContain(id);
    const again = await settled(id);
    expect(again.processing_state).toBe('Processed');
    expect(again.processing_error).toBeNull();
  });
});
